"""jupyter_server extension: the findings of a notebook in the server root, for the JupyterLab side panel."""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyter_trainguard.server"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    """Called by jupyter_server at start-up: register the REST routes under `<base_url>/trainguard/`."""
    from .handlers import setup_handlers

    setup_handlers(server_app.web_app)
    server_app.log.info("jupyter_trainguard: findings endpoint at %strainguard/findings",
                        server_app.web_app.settings.get("base_url", "/"))


# jupyter_server < 2 looked for this name.
load_jupyter_server_extension = _load_jupyter_server_extension
