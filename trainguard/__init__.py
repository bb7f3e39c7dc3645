"""Alias package so that `%load_ext trainguard` works; everything lives in `jupyter_trainguard`."""

from jupyter_trainguard import __version__, load_ipython_extension, unload_ipython_extension

__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]
