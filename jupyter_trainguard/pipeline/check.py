"""`check_pipeline(config)`: import, fit together and smoke-run the shared components, safely, in a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError
from ..engine import Selection
from ..findings import Location
from ..rules.pipeline_health import PROBE
from .isolation import ProbeRun, run_probe
from .notebooks import notebook_uses
from .result import (
    PROBE_RULES,
    STATIC_RULES,
    Collector,
    ComponentStatus,
    PipelineResult,
    SmokeResult,
    add_statuses,
    display_path,
)
from .sources import CallSite, ComponentModule, Link, component_calls, import_order, load_components
from .spec import pipeline_spec
from .static_checks import Checker
from .verdicts import (
    call_findings,
    constant_findings,
    entry_findings,
    flow_findings,
    import_findings,
    link_findings,
    smoke_findings,
)

__all__ = ["check_pipeline", "PipelineResult", "ComponentStatus", "SmokeResult"]


def check_pipeline(config: Config, smoke: bool = False, selection: Selection = Selection(),
                   timeout_s: float | None = None, notebooks: bool | None = None) -> PipelineResult:
    """Check the components configured in `[tool.trainguard]`; raises `ConfigError` when none are configured.

    `smoke` also runs the configured integration entry point on its tiny configuration; `notebooks` (default:
    the pipeline table's `notebooks`, true) also checks the notebooks' calls and constants against the
    components. `timeout_s` overrides the per-probe time limit.
    """
    start = time.perf_counter()
    spec = pipeline_spec(config)
    if not config.components or not config.package_name:
        raise ConfigError("[tool.trainguard] components is not set: nothing to check")
    comp_dir = config.root / config.components
    if not comp_dir.is_dir():
        raise ConfigError(f"components folder {comp_dir} does not exist")
    timeout = float(timeout_s or spec.timeout_s)
    package = config.package_name
    mods = load_components(config.root, config.components, package)
    if not mods:
        raise ConfigError(f"components folder {comp_dir} has no Python modules")
    by_name = {m.name: m for m in mods}
    out = Collector(config, selection)
    result = PipelineResult(package=package)
    paths = {m.name: display_path(m.path) for m in mods}
    for m in mods:
        out.report(paths[m.name]).rules_run.extend(sorted(out.active))
        out.register_source(paths[m.name], m.path)

    sites: list[tuple[str, CallSite]] = []  # (component short name | notebook path, site)
    links: list[tuple[str, Link]] = []
    scopes: dict[str, list[CallSite]] = {}
    for m in mods:
        for scope, s, ln in component_calls(m, package, by_name):
            sites += [(m.name, x) for x in s]
            links += [(m.name, x) for x in ln]
            if scope:
                scopes[f"{m.name}.{scope}"] = s
    check_nbs = spec.notebooks if notebooks is None else notebooks
    uses = notebook_uses(config, package, by_name, comp_dir) if check_nbs else []
    for use in uses:
        sites += [(use.path, x) for x in use.sites]
        links += [(use.path, x) for x in use.links]

    targets = sorted(set(spec.entry_points) | {f for f in spec.flow if "." in f} |
                     ({spec.smoke.entry} if smoke and spec.smoke else set()))
    request = {
        "package": package, "components_dir": str(comp_dir.resolve()),
        "modules": [by_name[n].module for n in import_order(mods, package)],
        "targets": targets,
        "calls": [{"id": i, "target": s.target, "method": s.method, "nargs": s.nargs, "keywords": s.keywords,
                   "star": s.star, "dstar": s.dstar} for i, (_, s) in enumerate(sites)],
        "links": [{"id": i, "producer": ln.producer, "attr": ln.attr, "consumer": ln.consumer, "method": ln.method,
                   "position": ln.position, "keyword": ln.keyword} for i, (_, ln) in enumerate(links)],
        "accepts": spec.accepts,
    }
    smoke_dir = Path(tempfile.mkdtemp(prefix="trainguard-smoke-")) if smoke and spec.smoke else None
    artifacts: list[str] = []
    try:
        if smoke_dir is not None and spec.smoke is not None:  # the smoke run shares the probe process
            kwargs = dict(spec.smoke.kwargs)
            if spec.smoke.output_arg and spec.smoke.output_arg in kwargs:
                kwargs[spec.smoke.output_arg] = str(smoke_dir / str(kwargs[spec.smoke.output_arg]).lstrip("/"))
            request["smoke"] = {"entry": spec.smoke.entry, "kwargs": kwargs}
        if out.active & PROBE_RULES or smoke:
            imports, final, runs, fatal = _probe_imports(request, config.root, timeout, by_name)
        else:  # only source rules selected: nothing needs importing
            imports, final, runs, fatal = {}, None, 0, None
        if smoke_dir is not None:
            artifacts = sorted(p.relative_to(smoke_dir).as_posix() for p in smoke_dir.rglob("*") if p.is_file())
    finally:
        if smoke_dir is not None:
            shutil.rmtree(smoke_dir, ignore_errors=True)
    result.probe_runs = runs

    failed = import_findings(out, mods, imports, paths)
    if final is not None:
        entry_findings(out, spec, final.last("targets") or {}, by_name, paths, failed)
        call_findings(out, sites, (final.last("calls") or {}).get("data", []), by_name, paths, failed, package)
        link_findings(out, links, (final.last("links") or {}).get("data", []), by_name, paths)
        constant_findings(out, config, spec, (final.last("accepts") or {}).get("data", {}), uses, by_name, paths)
        result.counts = {"entry points": len(targets), "calls": len(sites), "links": len(links),
                         "constants": len(spec.accepts)}
    elif fatal:
        out.add(PROBE, Location(display_path(comp_dir)), fatal)
    flow_findings(out, spec, scopes, by_name, paths)
    checker = Checker(mods, package, spec.runner, spec.training_loop, spec.artifacts)
    for h in checker.run():
        cm = by_name[h.module]
        out.add(STATIC_RULES[h.rule_id], Location(paths[cm.name], line=h.line), h.message, h.evidence,
                source="static")

    if smoke:
        result.smoke = smoke_findings(out, spec, final, imports, artifacts, by_name, paths, comp_dir)
    add_statuses(result, mods, paths, out, imports)
    result.reports = sorted(out.by_path.values(), key=lambda r: r.path)
    result.seconds = time.perf_counter() - start
    for r in result.reports:
        r.notebook_kind = "other"
    return result


def _probe_imports(request: dict, root: Path, timeout: float, by_name: dict[str, ComponentModule]
                   ) -> tuple[dict[str, dict], ProbeRun | None, int, str | None]:
    """Run the probe until it finishes, blocking each module that hangs or kills the interpreter."""
    imports: dict[str, dict] = {}
    block: dict[str, str] = {}
    runs = 0
    for _ in range(len(by_name) + 2):
        run = run_probe({**request, "block": block}, root, timeout)
        runs += 1
        for e in run.of("import_end"):
            imports.setdefault(e["module"], e)
        if run.finished or run.last("smoke_start"):  # every check ran; the smoke run judges itself
            return imports, run, runs, None
        stack = [m for m in run.open_imports() if m not in block]
        if not stack:
            return imports, None, runs, (f"the pipeline probe {run.how_it_ended()} outside any component import"
                                         f"{_stderr_hint(run.stderr)}")
        culprit = stack[-1]
        how = run.how_it_ended()
        err: dict[str, Any] = {"type": "Fatal", "message": f"importing it {how}"}
        file_line = _faulthandler_line(run.stderr, by_name, culprit)
        if file_line:
            err["file"], err["line"] = file_line
        imports[culprit] = {"module": culprit, "ok": False, "fatal": how, "error": err,
                            "stderr": run.stderr[-1500:]}
        block[culprit] = f"its import {how} in an earlier probe run"
        request = {**request, "smoke": None}  # never smoke-run a pipeline that cannot even be imported
    return imports, None, runs, "the pipeline probe did not finish after blocking every failing component"


def _stderr_hint(stderr: str) -> str:
    tail = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:]
    return f": {tail[0].strip()}" if tail else ""


def _faulthandler_line(stderr: str, by_name: dict[str, ComponentModule], module: str) -> tuple[str, int] | None:
    files = {str(m.path.resolve()) for m in by_name.values() if m.module == module}
    for m in re.finditer(r'File "([^"]+)", line (\d+)', stderr):
        if os.path.abspath(m.group(1)) in files:
            return os.path.abspath(m.group(1)), int(m.group(2))
    return None
