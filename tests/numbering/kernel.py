"""Run a notebook in a real ipykernel through nbclient, sending each cell's id the way JupyterLab does."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat


def run_like_lab(path: Path, session_name: bool = True, timeout: int = 120) -> nbformat.NotebookNode:
    """Execute every code cell of `path` in order (errors allowed) and save the outputs back to `path`.

    JupyterLab sends `metadata.cellId` with each execute request and starts kernels with `JPY_SESSION_NAME` set to
    the notebook's path; nbclient does neither, so the request is built here as JupyterLab builds it.
    """
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    env = dict(os.environ)
    env.pop("JPY_SESSION_NAME", None)
    if session_name:
        env["JPY_SESSION_NAME"] = str(path)
    current: dict[str, str] = {}

    def execute(
        code: str,
        silent: bool = False,
        store_history: bool = True,
        user_expressions=None,
        allow_stdin=None,
        stop_on_error: bool = True,
    ) -> str:
        kc = client.kc
        content = {
            "code": code,
            "silent": silent,
            "store_history": store_history,
            "user_expressions": user_expressions or {},
            "allow_stdin": False,
            "stop_on_error": stop_on_error,
        }
        msg = kc.session.msg("execute_request", content, metadata={"cellId": current.get("id", "")})
        kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    with client.setup_kernel(env=env):
        client.kc.execute = execute
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            current["id"] = cell.get("id", "")
            client.execute_cell(cell, index)
        client.set_widgets_metadata()  # widget state saved with the notebook, as JupyterLab can do
    nbformat.write(nb, path)
    return nb
