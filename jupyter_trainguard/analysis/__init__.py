"""Static analysis shared by the rules: parsing, import resolution and (cross-cell) dataflow."""

from .parsed import ParsedCell, ParsedNotebook, dotted, last_part, qualname

__all__ = ["ParsedCell", "ParsedNotebook", "dotted", "last_part", "qualname"]
