"""Leak detectors over the interpreter's `Record`: one module per leak type."""

from .common import Leak
from .overlap import overlap_leaks
from .preprocessing import preprocessing_leaks

__all__ = ["Leak", "overlap_leaks", "preprocessing_leaks"]
