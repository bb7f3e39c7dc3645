"""jupyter-trainguard: keeps ML training in notebooks honest and reproducible.

Importing this package is cheap: torch, scikit-learn, MLflow and W&B are only imported by the code that needs them.
"""

from __future__ import annotations

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """`%load_ext jupyter_trainguard` (or `%load_ext trainguard`): register the magics."""
    from .magics import register
    from .session_cells import watch

    register(ipython)
    watch(ipython)  # cell ids per execution count, so runtime findings name notebook cells


def unload_ipython_extension(ipython) -> None:
    from .magics import unregister
    from .session_cells import unwatch

    unregister(ipython)
    unwatch(ipython)


def _jupyter_server_extension_points():
    return [{"module": "jupyter_trainguard.server"}]


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyter-trainguard"}]
