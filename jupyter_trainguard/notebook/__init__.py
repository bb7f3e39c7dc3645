"""Notebook sources (.ipynb, jupytext .py, live session) read into one format-free model."""

from .load import iter_notebook_paths, load_notebook, notebook_from_bytes, notebook_from_sources
from .model import Cell, Notebook

__all__ = ["Cell", "Notebook", "iter_notebook_paths", "load_notebook", "notebook_from_bytes",
           "notebook_from_sources"]
