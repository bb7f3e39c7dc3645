"""Turn what the probe reported (and the static call graph) into PHEALTH findings."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Any

from ..config import Config
from ..findings import Location
from ..rules.pipeline_health import (
    CALL_MISMATCH,
    CONSTANT,
    ENTRY_POINT,
    IMPORT_ERROR,
    INTEGRATION,
    SMOKE,
    TRACKING_RUN,
)
from ..rules.registry import Hit, Rule
from .isolation import ProbeRun
from .notebooks import NotebookUse
from .result import Collector, SmokeResult, display_path
from .sources import CallSite, ComponentModule, Link
from .spec import PipelineSpec


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


def import_findings(out: Collector, mods: list[ComponentModule], imports: dict[str, dict],
                    paths: dict[str, str]) -> set[str]:
    """PHEALTH001 per module that failed to import; returns the short names of those modules."""
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
            msg = f"{m.name} cannot be imported because {cause.name}, which it imports, fails to import."
            out.add(IMPORT_ERROR, Location(paths[m.name], line=_import_line(m, cause)), msg,
                    {"caused_by": cause.name, "error_type": err.get("type"), "error": err.get("message")})
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


def entry_findings(out: Collector, spec: PipelineSpec, targets: dict, by_name: dict[str, ComponentModule],
                   paths: dict[str, str], failed: set[str]) -> None:
    """PHEALTH002: each declared entry point exists, is callable and takes the parameters callers pass."""
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
                   out: Collector) -> tuple[Location | None, Hit | None]:
    """A component site gives a Location; a notebook site gives a Hit (the cell maps its line)."""
    if owner in by_name:
        return Location(paths[owner], line=node.lineno, column=node.col_offset + 1), None
    cell = getattr(node, "_tg_cell", None)
    return None, Hit(cell, node.lineno, "", end_line=node.end_lineno, column=node.col_offset + 1)


def _emit(out: Collector, rule: Rule, owner: str, node: ast.AST, message: str, evidence: dict,
          by_name: dict[str, ComponentModule], paths: dict[str, str], severity: str | None = None) -> None:
    loc, hit = _site_location(owner, node, by_name, paths, out)
    if loc is not None:
        out.add(rule, loc, message, evidence, severity=severity)
    elif hit is not None:
        hit.message, hit.evidence, hit.severity = message, evidence, severity
        out.add_hit(rule, hit, display_path(owner))


def call_findings(out: Collector, sites: list[tuple[str, CallSite]], data: list[dict],
                  by_name: dict[str, ComponentModule], paths: dict[str, str], failed: set[str],
                  package: str) -> None:
    """PHEALTH003: calls (from components and notebooks) that do not bind to the callee's real signature."""
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


def link_findings(out: Collector, links: list[tuple[str, Link]], data: list[dict],
                  by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    """PHEALTH004: a value passed between stages whose annotation the receiving parameter does not accept."""
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


def constant_findings(out: Collector, config: Config, spec: PipelineSpec, accepts: dict,
                      uses: list[NotebookUse], by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    """PHEALTH005: configured choices/ranges and notebook constants the components do not accept."""
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


def flow_findings(out: Collector, spec: PipelineSpec, scopes: dict[str, list[CallSite]],
                  by_name: dict[str, ComponentModule], paths: dict[str, str]) -> None:
    """PHEALTH004: the runner must reach every later stage of the configured integration flow."""
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


def smoke_findings(out: Collector, spec: PipelineSpec, run: ProbeRun | None, imports: dict[str, dict],
                   artifacts: list[str], by_name: dict[str, ComponentModule], paths: dict[str, str],
                   comp_dir: Path) -> SmokeResult:
    """PHEALTH006 (and a runtime PHEALTH013) from the smoke run; returns its summary."""
    if spec.smoke is None:
        return SmokeResult(entry=spec.runner or "?", ok=False,
                           skipped="no [tool.trainguard.pipeline.smoke] table configured")
    entry = spec.smoke.entry
    fatal = [m for m, e in imports.items() if e.get("fatal")]
    if fatal:
        return SmokeResult(entry=entry, ok=False, skipped=f"{', '.join(fatal)} cannot be imported safely")
    if run is None:
        return SmokeResult(entry=entry, ok=False, skipped="the pipeline probe did not finish")
    end = run.last("smoke_end")
    mod = entry.split(".")[0]
    cm = by_name.get(mod)
    default_loc = Location(paths[cm.name], line=1) if cm else Location(display_path(comp_dir))
    if end is None:
        how = run.how_it_ended()
        msg = f"The smoke run of {entry}() {how}."
        line = _faulthandler_any_line(run.stderr, by_name)
        loc = Location(paths[line[0].name], line=line[1]) if line else default_loc
        out.add(SMOKE, loc, msg, {"entry": entry, "stderr": run.stderr[-1500:], "artifacts": artifacts})
        return SmokeResult(entry=entry, ok=False, error=msg, artifacts=artifacts)
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


def _faulthandler_any_line(stderr: str, by_name: dict[str, ComponentModule]) -> tuple[ComponentModule, int] | None:
    """The innermost component frame of a faulthandler dump (hang or crash during the smoke run)."""
    files = {str(m.path.resolve()): m for m in by_name.values()}
    for m in re.finditer(r'File "([^"]+)", line (\d+)', stderr):  # faulthandler lists innermost first
        cm = files.get(os.path.abspath(m.group(1)))
        if cm is not None:
            return cm, int(m.group(2))
    return None
