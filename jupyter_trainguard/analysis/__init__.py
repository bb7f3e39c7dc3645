"""Static analysis shared by the rules: parsing, import resolution and row provenance (`provenance/`)."""

from .parsed import ParsedCell, ParsedNotebook, dotted, last_part, qualname

__all__ = ["ParsedCell", "ParsedNotebook", "dotted", "last_part", "qualname"]
