"""A real IPython InteractiveShell with trainguard loaded, one per test, history kept in memory only."""

from __future__ import annotations

import os

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config


class Shell:
    """Thin helper around the shell: `run(src)` executes a cell exactly as a notebook would (stored history)."""

    def __init__(self, ip: InteractiveShell) -> None:
        self.ip = ip

    def run(self, src: str, ok: bool = True):
        result = self.ip.run_cell(src, store_history=True)
        if ok and not result.success:
            raise AssertionError(f"cell failed: {result.error_before_exec or result.error_in_exec!r}")
        return result

    @property
    def ns(self) -> dict:
        return self.ip.user_ns

    @property
    def last(self):
        return self.ip.user_ns["_trainguard_last"]

    def ids(self) -> list[str]:
        return [f.rule_id for f in self.last.findings]


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    InteractiveShell.clear_instance()
    cfg = Config()
    cfg.HistoryAccessor.enabled = False
    ip = InteractiveShell.instance(config=cfg)
    sh = Shell(ip)
    sh.run("%load_ext trainguard")
    yield sh
    ip.run_line_magic("unload_ext", "trainguard")
    InteractiveShell.clear_instance()
    os.environ.pop("MLFLOW_TRACKING_URI", None)
