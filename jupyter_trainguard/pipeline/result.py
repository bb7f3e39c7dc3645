"""What `check_pipeline` returns, and the collector that files findings into per-file reports."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Config
from ..engine import Selection, hit_to_finding
from ..findings import Finding, Location, Report, Severity, Suppressed
from ..notebook.model import Cell
from ..rules.pipeline_health import (
    ARTIFACTS_ON_FAILURE,
    CALL_MISMATCH,
    CONSTANT,
    ENTRY_POINT,
    GPU_CLEANUP,
    IMPORT_ERROR,
    INTEGRATION,
    LOOP_ERRORS,
    PROBE,
    SMOKE,
    TRACKING_RUN,
)
from ..rules.registry import Hit, Rule
from ..suppression import suppressing
from .sources import ComponentModule

STATIC_RULES = {r.id: r for r in (LOOP_ERRORS, ARTIFACTS_ON_FAILURE, GPU_CLEANUP, TRACKING_RUN)}
ALL_RULES = (IMPORT_ERROR, ENTRY_POINT, CALL_MISMATCH, INTEGRATION, CONSTANT, SMOKE, PROBE, *STATIC_RULES.values())
PROBE_RULES = frozenset(r.id for r in (IMPORT_ERROR, ENTRY_POINT, CALL_MISMATCH, INTEGRATION, CONSTANT, PROBE))


@dataclass
class ComponentStatus:
    name: str
    path: str
    ok: bool
    reason: str = ""
    import_seconds: float | None = None


@dataclass
class SmokeResult:
    entry: str
    ok: bool
    seconds: float | None = None
    import_seconds: float | None = None
    rss_peak_mb: float | None = None
    rss_before_mb: float | None = None
    cuda_peak_mb: float | None = None
    error: str | None = None
    artifacts: list[str] = field(default_factory=list)
    skipped: str | None = None

    def describe(self) -> str:
        if self.skipped:
            return f"smoke: SKIPPED {self.entry}: {self.skipped}"
        head = f"smoke: {'OK' if self.ok else 'FAIL'} {self.entry}"
        if self.seconds is not None:
            head += f" in {self.seconds:.2f} s"
            if self.import_seconds is not None:
                head += f" (+{self.import_seconds:.2f} s imports)"
        mem = []
        if self.rss_peak_mb is not None:
            extra = ""
            if self.rss_before_mb is not None:
                extra = f" (+{max(0.0, self.rss_peak_mb - self.rss_before_mb):.1f} MiB during the run)"
            mem.append(f"peak RSS {self.rss_peak_mb:.1f} MiB{extra}")
        if self.cuda_peak_mb is not None:
            mem.append(f"CUDA peak {self.cuda_peak_mb:.1f} MiB")
        if mem:
            head += "; " + ", ".join(mem)
        if self.artifacts:
            head += f"; {len(self.artifacts)} artifact(s): " + ", ".join(self.artifacts[:5])
        if self.error:
            head += f"\n    {self.error}"
        return head


@dataclass
class PipelineResult:
    """Reports (one per component file, plus notebooks/config with findings), statuses and the smoke run."""

    package: str
    reports: list[Report] = field(default_factory=list)
    components: list[ComponentStatus] = field(default_factory=list)
    smoke: SmokeResult | None = None
    probe_runs: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.reports for f in r.findings]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.components) and (self.smoke is None or self.smoke.ok)

    def worst(self) -> Severity | None:
        sev = [f.severity for f in self.findings]
        return max(sev, key=lambda s: s.rank) if sev else None

    def summary_text(self) -> str:
        width = max([len(c.name) for c in self.components] + [8])
        lines = [f"pipeline {self.package}: {len(self.components)} component(s), "
                 f"{self.probe_runs} isolated probe run(s), {self.seconds:.2f} s"]
        for c in self.components:
            took = f" ({c.import_seconds:.2f} s import)" if c.import_seconds is not None and c.ok else ""
            lines.append(f"  {'OK  ' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.reason}{took}".rstrip())
        if self.counts:
            lines.append("  checked: " + ", ".join(f"{v} {k}" for k, v in self.counts.items()))
        if self.smoke is not None:
            lines.append(self.smoke.describe())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.package, "ok": self.ok, "probe_runs": self.probe_runs, "seconds": round(self.seconds, 3),
            "components": [c.__dict__ for c in self.components], "counts": self.counts,
            "smoke": None if self.smoke is None else self.smoke.__dict__,
            "reports": [r.to_dict() for r in self.reports],
        }


def display_path(path: str | Path) -> str:
    p = os.path.abspath(path)
    try:
        rel = os.path.relpath(p)
    except ValueError:  # another drive on Windows
        return p
    return p if rel.startswith("..") else rel


class Collector:
    """Gathers findings into per-file reports, honouring rule selection and severity overrides."""

    def __init__(self, config: Config, selection: Selection) -> None:
        self.config, self.selection = config, selection
        self.by_path: dict[str, Report] = {}
        self.active = {r.id for r in ALL_RULES if selection.why_skipped(r, config) is None}
        self.sources: dict[str, Cell] = {}  # component display path -> the file as one cell, for suppression

    def register_source(self, path: str, file: Path) -> None:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        self.sources[path] = Cell(index=0, cell_type="code", source=text)

    def _keep(self, report: Report, finding: Finding, cell: Cell | None) -> None:
        loc = finding.location
        directive = suppressing(cell, loc.line, loc.end_line, finding.rule_id) if cell is not None else None
        if directive is not None:
            report.suppressed.append(Suppressed(finding, directive.describe()))
        else:
            report.findings.append(finding)

    def report(self, path: str) -> Report:
        return self.by_path.setdefault(path, Report(path=path))

    def add(self, rule: Rule, location: Location, message: str, evidence: dict | None = None,
            severity: str | None = None, source: str = "runtime") -> None:
        if rule.id not in self.active:
            return
        sev = self.config.severity.get(rule.id) or severity
        finding = rule.finding(location, message, evidence, sev, source=source)
        self._keep(self.report(location.path), finding, self.sources.get(location.path))

    def add_hit(self, rule: Rule, hit: Hit, path: str) -> None:
        if rule.id not in self.active:
            return
        f = hit_to_finding(rule, hit, path, self.config)
        f.source = "runtime"
        self._keep(self.report(path), f, hit.cell)


def add_statuses(result: PipelineResult, mods: list[ComponentModule], paths: dict[str, str], out: Collector,
                 imports: dict[str, dict]) -> None:
    for m in mods:
        rep = out.by_path.get(paths[m.name])
        errors = [f for f in (rep.sorted_findings() if rep else []) if f.severity is Severity.ERROR]
        warnings = [f for f in (rep.findings if rep else []) if f.severity is Severity.WARNING]
        reason = f"{errors[0].rule_id} {errors[0].message}" if errors else \
            (f"{len(warnings)} warning(s)" if warnings else "")
        if len(reason) > 160:
            reason = reason[:157] + "..."
        seconds = imports.get(m.module, {}).get("seconds")
        result.components.append(ComponentStatus(m.name, paths[m.name], not errors, reason,
                                                 round(seconds, 3) if seconds is not None else None))
