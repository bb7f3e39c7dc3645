"""The result of one guarded cell: what `_trainguard_last`, `last_run()`, the panel and the JSON report hold."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..findings import SCHEMA_VERSION, Finding, Report, Severity

_LAST: GuardRun | None = None


@dataclass
class GuardRun:
    """Everything `%%guarded_train` found and measured for one cell."""

    status: str = "pending"  # "ok" | "failed" | "refused"
    started_at: float = field(default_factory=time.time)
    duration_s: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    execution_count: int | None = None
    static: Report | None = None
    static_ms: float = 0.0
    runtime_findings: list[Finding] = field(default_factory=list)
    runtime_ms: float = 0.0
    splits: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seeding: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] = field(default_factory=dict)
    estimate: dict[str, Any] | None = None
    tracking: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None  # type, message, oom numbers, advice
    cleanup: dict[str, Any] = field(default_factory=dict)
    refused_because: list[str] = field(default_factory=list)
    suppressed: list[str] = field(default_factory=list)  # runtime findings silenced by a cell directive
    report_path: str | None = None
    # the guard's own work (ms): before the cell, while it ran (memory hooks and sampler, static rules running
    # beside it) and after it; `cell_s` is the cell's own run time
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        """Runtime findings first (they are about this run), then the static ones."""
        static = self.static.sorted_findings() if self.static else []
        return sorted(self.runtime_findings, key=lambda f: -f.severity.rank) + static

    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION, "kind": "guarded_train", "status": self.status,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_at)),
            "duration_s": round(self.duration_s, 4), "execution_count": self.execution_count,
            "options": self.options, "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
            "static": {"elapsed_ms": round(self.static_ms, 2),
                       "rules_run": len(self.static.rules_run) if self.static else 0,
                       "skipped_rules": self.static.skipped_rules if self.static else {}},
            "runtime": {"elapsed_ms": round(self.runtime_ms, 2), "splits": self.splits, "notes": self.notes},
            "seeding": self.seeding, "memory": self.memory, "estimate": self.estimate, "tracking": self.tracking,
            "error": self.error, "cleanup": self.cleanup, "refused_because": self.refused_because,
            "suppressed": self.suppressed, "cost": {k: round(v, 3) for k, v in self.cost.items()},
            "report_path": self.report_path,
        }

    def write(self, directory: str | Path) -> Path:
        """Write the JSON report into `directory` (created if needed); returns the file path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.started_at))
        path = d / f"guarded_train-{stamp}-{int(self.started_at * 1000) % 1000:03d}-{self.status}.json"
        self.report_path = str(path)
        path.write_text(json.dumps(self.to_dict(), indent=2, default=str))
        return path


def set_last(run: GuardRun) -> None:
    global _LAST
    _LAST = run


def last_run() -> GuardRun | None:
    """The report of the most recent `%%guarded_train` cell in this kernel (None before the first)."""
    return _LAST
