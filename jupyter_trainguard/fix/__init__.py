"""`trainguard fix`: safe, reviewable fixes written back into notebooks (`.ipynb` and jupytext `.py`).

Fixers are registered in `registry.py` (fixer id -> rule ids, safety, description, function) and live in
`fixers/`. Edits are text splices at libcst positions, so comments, formatting, magics, outputs and metadata stay
as they were.
"""

from __future__ import annotations

from .model import Change, FileResult, FixReport, Left
from .registry import Fixer, all_fixers, rule_fix_safety
from .runner import fix_file, fix_paths

__all__ = ["Change", "FileResult", "FixReport", "Fixer", "Left", "all_fixers", "fix_file", "fix_paths",
           "rule_fix_safety"]
