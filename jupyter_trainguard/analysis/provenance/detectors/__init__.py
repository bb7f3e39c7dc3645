"""Leak detectors over the interpreter's `Record`: one module per leak type."""

from .multitest import multitest_leaks
from .overlap import overlap_leaks
from .preprocessing import preprocessing_leaks, synthesis_leaks
from .selection import selection_leaks
from .target import target_leaks
from .wording import Leak

__all__ = ["Leak", "multitest_leaks", "overlap_leaks", "preprocessing_leaks", "selection_leaks", "synthesis_leaks",
           "target_leaks"]
