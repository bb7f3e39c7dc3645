"""REST handler: `GET <base_url>/trainguard/findings?path=<api path>` answers the engine's `Report.to_dict()`."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .paths import PathRefused, resolve_in_root

MAX_BYTES = 32 * 1024 * 1024  # notebooks over this are reported (NB002), not read

# One analysis at a time, off the event loop: analyses are CPU-bound (the GIL gives no parallelism anyway), and
# the engine's lazy rule loading is not safe to race from several threads on first use.
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trainguard-analysis")


def analyze_file(full: Path, api_path: str, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """Run the same engine as the CLI on one file; paths in the answer are API paths, never server paths."""
    from ..config import ConfigError, load_config
    from ..engine import analyze_notebook
    from ..findings import Location, Report
    from ..notebook.load import load_notebook
    from ..rules.registry import get_rule

    try:
        config = load_config(full)
    except ConfigError as exc:
        report = Report(path=str(full), error=f"configuration error: {exc}")
        report.findings.append(get_rule("NB002").finding(Location(str(full)), f"Configuration error: {exc}",
                                                         source="static"))
    else:
        report = analyze_notebook(load_notebook(full, max_bytes=max_bytes), config)[0]
    return _relative(report.to_dict(), str(full), api_path)


def _relative(data: dict[str, Any], full: str, api_path: str) -> dict[str, Any]:
    data["path"] = api_path
    if data.get("error"):
        data["error"] = data["error"].replace(full, api_path)
    for entry in [*data.get("findings", []), *(s["finding"] for s in data.get("suppressed", []))]:
        loc = entry.get("location", {})
        if loc.get("path") == full:
            loc["path"] = api_path
        entry["message"] = entry.get("message", "").replace(full, api_path)
    return data


class FindingsHandler(APIHandler):
    """Findings of one notebook (`.ipynb`, jupytext or plain `.py`) inside the server root."""

    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def get(self) -> None:
        api_path = self.get_query_argument("path", "")
        cm = self.contents_manager
        root = getattr(cm, "root_dir", None) or self.settings.get("server_root_dir", ".")
        try:
            full = resolve_in_root(root, api_path, allow_hidden=bool(getattr(cm, "allow_hidden", False)))
        except PathRefused as exc:
            self._json_error(exc.status, exc.message, api_path)
            return
        max_bytes = int(self.settings.get("trainguard_max_bytes", MAX_BYTES))
        data = await asyncio.get_running_loop().run_in_executor(_EXECUTOR, analyze_file, full, api_path, max_bytes)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    def _json_error(self, status: int, message: str, api_path: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"status": status, "message": message, "path": api_path}))


def setup_handlers(web_app: Any) -> None:
    base = web_app.settings.get("base_url", "/")
    web_app.add_handlers(".*$", [(url_path_join(base, "trainguard", "findings"), FindingsHandler)])
