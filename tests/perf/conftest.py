"""A real IPython shell with trainguard loaded, one per test (history in memory only)."""

from __future__ import annotations

import pytest

from tests.ipshell import Shell as BaseShell
from tests.ipshell import loaded_shell


class Shell(BaseShell):
    @property
    def last(self):
        return self.ip.user_ns["_trainguard_last"]

    def ids(self) -> list[str]:
        return [f.rule_id for f in self.last.findings]


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with loaded_shell(Shell) as sh:
        yield sh
