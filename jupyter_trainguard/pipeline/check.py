"""`check_pipeline(config)`: import, fit together and smoke-run the shared components, safely, in a subprocess."""

from __future__ import annotations

import ast
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError
from ..engine import Selection, hit_to_finding
from ..findings import Finding, Location, Report, Severity
from ..rules.pipeline_health import (
    ARTIFACTS_ON_FAILURE, CALL_MISMATCH, CONSTANT, ENTRY_POINT, GPU_CLEANUP, IMPORT_ERROR, INTEGRATION, LOOP_ERRORS,
    PROBE, SMOKE, TRACKING_RUN,
)
from ..rules.registry import Hit, Rule
from .isolation import ProbeRun, run_probe
from .notebooks import NotebookUse, notebook_uses
from .sources import CallSite, ComponentModule, Link, component_calls, import_order, load_components
from .spec import PipelineSpec, pipeline_spec
from .static_checks import Checker

STATIC_RULES = {r.id: r for r in (LOOP_ERRORS, ARTIFACTS_ON_FAILURE, GPU_CLEANUP, TRACKING_RUN)}
ALL_RULES = (IMPORT_ERROR, ENTRY_POINT, CALL_MISMATCH, INTEGRATION, CONSTANT, SMOKE, PROBE, *STATIC_RULES.values())


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


class _Collector:
    """Gathers findings into per-file reports, honouring rule selection and severity overrides."""

    def __init__(self, config: Config, selection: Selection) -> None:
        self.config, self.selection = config, selection
        self.by_path: dict[str, Report] = {}
        self.active = {r.id for r in ALL_RULES if selection.why_skipped(r, config) is None}

    def report(self, path: str) -> Report:
        return self.by_path.setdefault(path, Report(path=path))

    def add(self, rule: Rule, location: Location, message: str, evidence: dict | None = None,
            severity: str | None = None, source: str = "runtime") -> None:
        if rule.id not in self.active:
            return
        sev = self.config.severity.get(rule.id) or severity
        self.report(location.path).findings.append(rule.finding(location, message, evidence, sev, source=source))

    def add_hit(self, rule: Rule, hit: Hit, path: str) -> None:
        if rule.id not in self.active:
            return
        f = hit_to_finding(rule, hit, path, self.config)
        f.source = "runtime"
        self.report(path).findings.append(f)


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
    out = _Collector(config, selection)
    result = PipelineResult(package=package)
    paths = {m.name: display_path(m.path) for m in mods}
    for m in mods:
        out.report(paths[m.name]).rules_run.extend(sorted(out.active))

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
    imports, final, runs, fatal = _probe_imports(request, config.root, timeout, by_name)
    result.probe_runs = runs

    failed = _import_findings(out, mods, imports, paths, result)
    if final is not None:
        _entry_findings(out, spec, final.last("targets") or {}, by_name, paths, failed)
        _call_findings(out, sites, (final.last("calls") or {}).get("data", []), by_name, paths, failed, package)
        _link_findings(out, links, (final.last("links") or {}).get("data", []), by_name, paths)
        _constant_findings(out, config, spec, (final.last("accepts") or {}).get("data", {}), uses, by_name, paths)
        result.counts = {"entry points": len(targets), "calls": len(sites), "links": len(links),
                         "constants": len(spec.accepts)}
    elif fatal:
        out.add(PROBE, Location(display_path(comp_dir)), fatal)
    _flow_findings(out, spec, scopes, by_name, paths)
    checker = Checker(mods, package, spec.runner, spec.training_loop, spec.artifacts)
    for h in checker.run():
        cm = by_name[h.module]
        out.add(STATIC_RULES[h.rule_id], Location(paths[cm.name], line=h.line), h.message, h.evidence,
                source="static")

    if smoke:
        result.smoke = _smoke(out, spec, config, package, comp_dir, timeout, imports, by_name, paths)
        result.probe_runs += 0 if result.smoke.skipped else 1
    _statuses(result, mods, paths, out, imports)
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
        if run.finished:
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


def _module_of_file(file: str | None, mods: list[ComponentModule]) -> ComponentModule | None:
    if not file:
        return None
    for m in mods:
        if str(m.path.resolve()) == os.path.abspath(file):
            return m
    return None


def _import_line(cm: ComponentModule, dep: ComponentModule) -> int:
    if cm.tree is None:
        return 1
    for node in ast.walk(cm.tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom)
                                                    and node.module else [])
            if any(n and (n == dep.name or n.endswith("." + dep.name) or n == dep.module) for n in names):
                return node.lineno
    return 1


def _import_findings(out: _Collector, mods: list[ComponentModule], imports: dict[str, dict],
                     paths: dict[str, str], result: PipelineResult) -> set[str]:
    failed: set[str] = set()
    by_module = {m.module: m for m in mods}
    for m in mods:
        e = imports.get(m.module)
        if e is None or e.get("ok"):
            continue
        failed.add(m.name)
        err = e.get("error", {})
        cause = by_module.get(err.get("caused_by", ""))
        if cause is not None:
            msg = (f"{m.name} cannot be imported because the component it imports, {cause.name}, fails: "
                   f"{err.get('type')}: {err.get('message')}")
            out.add(IMPORT_ERROR, Location(paths[m.name], line=_import_line(m, cause)), msg,
                    {"caused_by": cause.name, "error_type": err.get("type")})
            continue
        where = _module_of_file(err.get("file"), mods)
        line = err.get("line") if where is m else None
        if e.get("fatal"):
            msg = f"Importing {m.name} {e['fatal']}; every notebook that imports it would die the same way."
        elif err.get("type") == "SystemExit":
            msg = (f"Importing {m.name} calls sys.exit({err.get('exit_code')!r}): the kernel of any notebook "
                   "importing it would exit.")
        else:
            msg = f"{m.name} fails to import: {err.get('type')}: {err.get('message')}"
        out.add(IMPORT_ERROR, Location(paths[m.name], line=line or 1), msg,
                {"error_type": err.get("type"), "traceback": err.get("traceback", ""), "stderr": e.get("stderr", "")})
    return failed


def _where(info: dict, cm: ComponentModule, paths: dict[str, str]) -> Location:
    line = info.get("line") if info.get("file") == str(cm.path.resolve()) else None
    return Location(paths[cm.name], line=line or 1)


def _entry_findings(out: _Collector, spec: PipelineSpec, targets: dict, by_name: dict[str, ComponentModule],
                    paths: dict[str, str], failed: set[str]) -> None:
    data = targets.get("data", {})
    for target, expected in sorted(spec.entry_points.items()):
        mod = target.split(".")[0]
        cm = by_name.get(mod)
        info = data.get(target)
        if info is None:
            continue
        if cm is None:
            out.add(ENTRY_POINT, Location(display_path(out.config.source or out.config.root)),
                    f"Entry point {target}: there is no component module {mod!r}.", {"entry_point": target})
            continue
        if mod in failed:
            continue
        if not info.get("found"):
            err = info.get("error", {})
            out.add(ENTRY_POINT, Location(paths[mod], line=1),
                    f"Entry point {target} does not exist: {err.get('message', '')}", {"entry_point": target})
            continue
        loc = _where(info, cm, paths)
        if not info.get("callable"):
            out.add(ENTRY_POINT, loc, f"Entry point {target} is a {info.get('kind')}, not callable.",
                    {"entry_point": target})
            continue
        params = info.get("params")
        if params is None:
            continue
        names = {p["name"] for p in params if p["kind"] not in ("VAR_POSITIONAL", "VAR_KEYWORD")}
        var_kw = any(p["kind"] == "VAR_KEYWORD" for p in params)
        missing = [p for p in expected if p not in names and not var_kw]
        required = [p["name"] for p in params if p["required"] and p["kind"] not in ("VAR_POSITIONAL", "VAR_KEYWORD")
                    and p["name"] not in expected]
        sig = f"{target.rsplit('.', 1)[-1]}{info.get('signature', '')}"
        if missing:
            out.add(ENTRY_POINT, loc, f"Entry point {target} has no parameter(s) {', '.join(map(repr, missing))} "
                                      f"that callers pass; its signature is {sig}.",
                    {"entry_point": target, "missing": missing, "signature": info.get("signature")})
        if expected and required:
            out.add(ENTRY_POINT, loc, f"Entry point {target} requires {', '.join(map(repr, required))}, which "
                                      f"callers do not pass; its signature is {sig}.",
                    {"entry_point": target, "unexpected_required": required, "signature": info.get("signature")})


def _site_location(owner: str, node: ast.AST, by_name: dict[str, ComponentModule], paths: dict[str, str],
                   out: _Collector) -> tuple[Location | None, Hit | None]:
    """A component site gives a Location; a notebook site gives a Hit (the cell maps its line)."""
    if owner in by_name:
        return Location(paths[owner], line=node.lineno, column=node.col_offset + 1), None
    cell = getattr(node, "_tg_cell", None)
    return None, Hit(cell, node.lineno, "", end_line=node.end_lineno, column=node.col_offset + 1)


def _emit(out: _Collector, rule: Rule, owner: str, node: ast.AST, message: str, evidence: dict,
          by_name: dict[str, ComponentModule], paths: dict[str, str], severity: str | None = None) -> None:
    loc, hit = _site_location(owner, node, by_name, paths, out)
    if loc is not None:
        out.add(rule, loc, message, evidence, severity=severity)
    elif hit is not None:
        hit.message, hit.evidence, hit.severity = message, evidence, severity
        out.add_hit(rule, hit, display_path(owner))


def _call_findings(out: _Collector, sites: list[tuple[str, CallSite]], data: list[dict],
                   by_name: dict[str, ComponentModule], paths: dict[str, str], failed: set[str],
                   package: str) -> None:
    for res in data:
        owner, site = sites[res["id"]]
        target_mod = site.target.split(".")[0]
        if res.get("ok") is False:
            msg = (f"Call to {site.target}() does not match its signature {res.get('signature', '')}: "
                   f"{res.get('error')}")
            _emit(out, CALL_MISMATCH, owner, site.node, msg, {"target": site.target, "error": res.get("error")},
                  by_name, paths)
        elif res.get("ok") is None and target_mod in by_name and target_mod not in failed \
                and "AttributeError" in str(res.get("error")):
            _emit(out, CALL_MISMATCH, owner, site.node, f"Call to {site.target}(): {res.get('error')}",
                  {"target": site.target, "error": res.get("error")}, by_name, paths)


def _link_findings(out: _Collector, links: list[tuple[str, Link]], data: list[dict],
                   by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    for res in data:
        if res.get("ok") is not False:
            continue
        owner, link = links[res["id"]]
        source = link.producer + (f".{link.attr}" if link.attr else "()")
        msg = (f"{source} gives {res['produced']}, but {link.consumer}() parameter '{res['param']}' expects "
               f"{res['expected']}.")
        _emit(out, INTEGRATION, owner, link.node, msg,
              {"producer": link.producer, "consumer": link.consumer, "param": res["param"],
               "produced": res["produced"], "expected": res["expected"]}, by_name, paths)


def _accepts(value: Any, acc: dict) -> bool:
    if acc["kind"] == "set":
        return value in acc["values"]
    if acc["kind"] == "range":
        return isinstance(value, int) and not isinstance(value, bool) and \
            acc["start"] <= value < acc["stop"] and (value - acc["start"]) % acc.get("step", 1) == 0
    return True


def _describe_acc(acc: dict) -> str:
    if acc["kind"] == "range":
        return f"{acc['start']}..{acc['stop'] - 1}"
    vals = acc["values"]
    return ", ".join(map(repr, vals[:12])) + (", ..." if len(vals) > 12 else "")


def _config_location(config: Config, name: str) -> Location:
    path = config.source or (config.root / "pyproject.toml")
    line = None
    try:
        for i, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
            if re.match(rf"\s*\[tool\.trainguard\.constants\.{re.escape(name)}\]", text) or \
                    re.match(rf"\s*{re.escape(name)}\s*=", text):
                line = i
                break
    except OSError:
        pass
    return Location(display_path(path), line=line)


def _constant_findings(out: _Collector, config: Config, spec: PipelineSpec, accepts: dict,
                       uses: list[NotebookUse], by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    for name, acc in sorted(accepts.items()):
        source = spec.accepts[name]
        if acc.get("kind") == "error":
            out.add(CONSTANT, _config_location(config, name),
                    f"{name}: cannot read what the components accept from {source}: {acc.get('error')}",
                    {"constant": name, "accepts": source})
            continue
        cspec = config.constants.get(name)
        if cspec is not None:
            bad = [c for c in (cspec.choices or ()) if not _accepts(c, acc)]
            if bad:
                out.add(CONSTANT, _config_location(config, name),
                        f"{name}: the config allows {', '.join(map(repr, bad))}, which {source} does not accept "
                        f"(it accepts {_describe_acc(acc)}).", {"constant": name, "not_accepted": bad})
            if acc["kind"] == "range":
                lo, hi = acc["start"], acc["stop"] - 1
                if (cspec.min is not None and cspec.min < lo) or (cspec.max is not None and cspec.max > hi):
                    out.add(CONSTANT, _config_location(config, name),
                            f"{name}: the config allows [{cspec.min}, {cspec.max}] but {source} accepts only "
                            f"{lo}..{hi}.", {"constant": name, "accepted": [lo, hi]})
        for use in uses:
            for cname, value, node in use.constants:
                if cname != name:
                    continue
                values = value if isinstance(value, (list, tuple)) else [value]
                bad = [v for v in values if not _accepts(v, acc)]
                if bad:
                    shown = ", ".join(map(repr, bad))
                    _emit(out, CONSTANT, use.path, node,
                          f"{name} = {value!r}: {shown} is not accepted by {source} (it accepts {_describe_acc(acc)}).",
                          {"constant": name, "value": value, "not_accepted": bad, "accepts": source}, by_name, paths)


def _reaches(start: str, scopes: dict[str, list[CallSite]], depth: int = 4) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    for _ in range(depth):
        nxt = []
        for fn in todo:
            for s in scopes.get(fn, []):
                if s.target not in seen:
                    seen.add(s.target)
                    nxt.append(s.target)
        todo = nxt
    return seen


def _flow_findings(out: _Collector, spec: PipelineSpec, scopes: dict[str, list[CallSite]],
                   by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    if len(spec.flow) < 2:
        return
    head = spec.flow[0]
    runner = head if "." in head else (spec.runner if spec.runner and spec.runner.startswith(head + ".") else None)
    if not runner or runner.split(".")[0] not in by_name:
        return
    cm = by_name[runner.split(".")[0]]
    fn = cm.function(runner.split(".", 1)[1])
    if fn is None:
        return
    reached = _reaches(runner, scopes)
    for stage in spec.flow[1:]:
        hit = any(t == stage or t.startswith(stage + ".") for t in reached)
        if not hit:
            out.add(INTEGRATION, Location(paths[cm.name], line=fn.lineno),
                    f"Integration flow broken: {runner}() never calls {stage} (flow: {' -> '.join(spec.flow)}).",
                    {"runner": runner, "missing_stage": stage, "flow": list(spec.flow)}, severity="error",
                    source="static")


def _smoke(out: _Collector, spec: PipelineSpec, config: Config, package: str, comp_dir: Path, timeout: float,
           imports: dict[str, dict], by_name: dict[str, ComponentModule], paths: dict[str, str]) -> SmokeResult:
    if spec.smoke is None:
        entry = spec.runner or "?"
        res = SmokeResult(entry=entry, ok=False, skipped="no [tool.trainguard.pipeline.smoke] table configured")
        return res
    entry = spec.smoke.entry
    fatal = [m for m, e in imports.items() if e.get("fatal")]
    if fatal:
        return SmokeResult(entry=entry, ok=False, skipped=f"{', '.join(fatal)} cannot be imported safely")
    kwargs = dict(spec.smoke.kwargs)
    tmp = Path(tempfile.mkdtemp(prefix="trainguard-smoke-"))
    try:
        out_arg = spec.smoke.output_arg
        if out_arg and out_arg in kwargs:
            kwargs[out_arg] = str(tmp / str(kwargs[out_arg]).lstrip("/"))
        request = {"package": package, "components_dir": str(comp_dir.resolve()), "modules": [],
                   "smoke": {"entry": entry, "kwargs": kwargs}}
        run = run_probe(request, config.root, timeout)
        artifacts = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    end = run.last("smoke_end")
    mod = entry.split(".")[0]
    cm = by_name.get(mod)
    default_loc = Location(paths[cm.name], line=1) if cm else Location(display_path(comp_dir))
    if end is None:
        stack = run.open_imports()
        where = f" while importing {stack[-1]}" if stack else ""
        msg = f"The smoke run of {entry}() {run.how_it_ended()}{where}."
        out.add(SMOKE, default_loc, msg, {"entry": entry, "stderr": run.stderr[-1500:]})
        return SmokeResult(entry=entry, ok=False, seconds=run.seconds, error=msg, artifacts=artifacts)
    res = SmokeResult(entry=entry, ok=bool(end.get("ok")), seconds=end.get("seconds"),
                      import_seconds=end.get("import_seconds"),
                      rss_peak_mb=end.get("rss_peak_mb"), rss_before_mb=end.get("rss_before_mb"),
                      cuda_peak_mb=end.get("cuda_peak_mb"), artifacts=artifacts)
    if not res.ok:
        err = end.get("error") or {}
        where = _module_of_file(err.get("file"), list(by_name.values()))
        loc = Location(paths[where.name], line=err.get("line")) if where else default_loc
        res.error = f"{err.get('type')}: {err.get('message')}"
        saved = "" if artifacts else " No artifacts were saved."
        out.add(SMOKE, loc, f"The smoke run of {entry}() failed: {res.error}.{saved}",
                {"entry": entry, "kwargs": spec.smoke.kwargs, "traceback": err.get("traceback", ""),
                 "artifacts": artifacts})
    for run_id in end.get("open_runs", []):
        out.add(TRACKING_RUN, default_loc, f"The smoke run of {entry}() left a tracking run open ({run_id}).",
                {"entry": entry, "run": run_id})
    return res


def _statuses(result: PipelineResult, mods: list[ComponentModule], paths: dict[str, str], out: _Collector,
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
