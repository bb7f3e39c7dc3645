"""The review as data: seven parts, grouped rule outcomes, provenance. Every renderer reads this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..findings import Finding, Suppressed

AUDIT_SCHEMA = "trainguard.audit/1"


@dataclass
class Line:
    """One statement in a part: a label, a value, and optionally where in the code it was seen."""

    label: str
    value: str
    where: str = ""
    cell_key: str = ""  # "path#index" of the cell the line points at

    def to_dict(self) -> dict[str, Any]:
        d = {"label": self.label, "value": self.value}
        if self.where:
            d["where"] = self.where
        if self.cell_key:
            d["cell"] = self.cell_key
        return d


@dataclass
class Part:
    key: str
    title: str
    status: str  # "issues" | "ok" | "info" | "not applicable" | "not checked"
    verdict: str
    lines: list[Line] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    not_applicable: str = ""  # why, when status is "not applicable"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "status": self.status, "verdict": self.verdict,
                "lines": [x.to_dict() for x in self.lines], "findings": [f.rule_id for f in self.findings],
                "passed": self.passed, "not_applicable": self.not_applicable}


@dataclass
class AuditReport:
    """The structured training-pipeline review of a session, notebook(s) or guarded run."""

    subject: str  # what was reviewed: "<session>", a path, or "last %%guarded_train run"
    mode: str  # "session" | "path" | "last-run" | "checkpoint"
    parts: list[Part] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # priority order
    passed: list[str] = field(default_factory=list)
    not_applicable: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    ignored: list[Suppressed] = field(default_factory=list)
    next_action: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    rerun: dict[str, Any] | None = None
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    run: dict[str, Any] | None = None
    cells: dict[str, str] = field(default_factory=dict)  # "path#index" -> code, for cells findings point at
    notes: list[str] = field(default_factory=list)
    generated_at: str = ""

    def part(self, key: str) -> Part:
        for p in self.parts:
            if p.key == key:
                return p
        raise KeyError(key)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        from .. import __version__

        return {
            "schema": AUDIT_SCHEMA, "tool": {"name": "trainguard", "version": __version__},
            "subject": self.subject, "mode": self.mode, "generated_at": self.generated_at,
            "counts": self.counts(),
            "parts": [p.to_dict() for p in self.parts],
            "findings": [f.to_dict() for f in self.findings],
            "groups": {
                "issues": [f.rule_id for f in self.findings],
                "passed": sorted(self.passed),
                "not_applicable": dict(sorted(self.not_applicable.items())),
                "skipped": dict(sorted(self.skipped.items())),
                "ignored": [s.to_dict() for s in self.ignored],
            },
            "next_action": self.next_action,
            "provenance": self.provenance,
            "rerun": self.rerun,
            "checkpoints": self.checkpoints,
            "run": self.run,
            "cells": self.cells,
            "notes": self.notes,
        }
