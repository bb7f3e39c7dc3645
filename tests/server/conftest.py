"""pytest-jupyter server fixtures (`jp_fetch`, `jp_root_dir`, ...) for the REST handler tests.

Imported here rather than via `pytest_plugins`, which pytest only allows in the top-level conftest.
Do not run these with pytest-asyncio in `asyncio_mode=auto`: it breaks `jp_fetch` (HTTPTimeoutError).
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_jupyter", reason="pytest-jupyter[server] is not installed")
pytest.importorskip("jupyter_server", reason="jupyter_server is not installed")

from pytest_jupyter.jupyter_server import *  # noqa: E402,F403


@pytest.fixture
def jp_server_config():  # replaces the star-imported fixture of the same name
    return {"ServerApp": {"jpserver_extensions": {"jupyter_trainguard": True}}}
