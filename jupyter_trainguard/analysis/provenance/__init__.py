"""Row provenance for leakage analysis: an abstract interpreter over the notebook's cells that tracks, for every
value, which rows it holds and which rows its statistics were learned from.

- `rows`: the row lattice (tokens, overlap, containment); `values`: abstract values, fits and evaluations
- `api/`: the declarative table of library calls, one module per library (`model_zoo`: libraries ranking many
  models in one call)
- `interpreter` runs the cells in `order`; its parts: `expressions`, `calls`, `objects` (constructors, notebook
  classes), `functions` (notebook functions), `loops`, `comprehensions`, `methods`, `columns` (frame columns, for
  target leakage), `training` (torch loops, trainers), `carried` (networks that keep their weights over the folds
  of a loop), `temporal` (time order, splits), `declared` (splits a library declares: dataset parts, Keras
  subsets), `containers` (lists, dicts, allocated matrices, torch subsets), `files` (values written and read
  back), `by_use` (names known by their use), `ranked` (columns typed in after a ranking was read); `state` holds
  what it records
- `detectors/`: one module per leak type (preprocessing, overlap, multitest, selection, target); `watched`: the
  data a fit watches while it trains
"""

from __future__ import annotations

from ..parsed import ParsedNotebook
from .interpreter import Interpreter
from .state import Record


def record_of(parsed: ParsedNotebook, cache: dict | None = None, strict: bool = False) -> Record:
    """Run the interpreter once per notebook (memoised in a rule context's cache)."""
    if cache is not None and "provenance" in cache:
        return cache["provenance"]
    rec = Interpreter(parsed, strict=strict).run()
    if cache is not None:
        cache["provenance"] = rec
    return rec


__all__ = ["Interpreter", "Record", "record_of"]
