"""Assemble the seven-part review from engine reports, static facts and (optionally) live evidence."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

from ..findings import Finding, Report, Severity, Suppressed, cell_label
from ..rules.registry import Rule, all_rules
from .checkpoint_keys import COMPONENTS
from .model import AuditReport, Line, Part
from .parts import PART_TITLES, by_priority, part_of
from .signals import Fact, Signals

RESUME_NEEDS = ("model", "optimizer", "progress")
ML_MODULES = frozenset({"sklearn", "torch", "xgboost", "lightgbm", "catboost", "tensorflow", "keras", "lightning",
                        "pytorch_lightning", "transformers", "imblearn"})


def _where(f: Fact) -> tuple[str, str]:
    loc = f.location
    if loc is None or loc.cell is None:
        return f.where(), ""
    return f.where(), f"{loc.path}#{loc.cell}"


def _fact_line(label: str, f: Fact, value: str | None = None) -> Line:
    where, key = _where(f)
    return Line(label, value if value is not None else f.detail, where, key)


def _finding_where(f: Finding) -> str:
    loc = f.location
    out = loc.cell_text or Path(loc.path).name or loc.path  # "cell 3 [In 2]" (findings.cell_label)
    if loc.line:
        out += f", line {loc.line}"
    return out


def environment_line(env_start: str | os.PathLike | None) -> Line:
    """Where the dependencies are pinned, found by the same lookup as ENV001 (folder of `env_start`, else the
    working folder, up to the config or repository root), so the review and the rule cannot disagree."""
    from ..config import ConfigError, load_config
    from ..rules.environment import all_pinned, pinning

    here = Path(env_start or Path.cwd()).resolve()
    folder = here.parent if here.is_file() or not here.exists() else here
    try:
        config = load_config(folder)
        root = config.root if config.source is not None else None
    except ConfigError:
        root = None
    found, dirs = pinning(folder, root)
    if found is not None:
        pinned = all_pinned(found)
        state = "" if pinned is None else (" (all pinned)" if pinned else " (NOT all pinned with ==)")
        return Line("Environment", f"{found.name}{state}", str(found.parent))
    top = dirs[-1].name or str(dirs[-1])
    return Line("Environment", f"no lockfile or pinned requirements (searched {len(dirs)} folder(s) up to {top})")


def _group(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(part_of(f.rule_id, f.category), []).append(f)
    return out


def _status(findings: list[Finding], passed: list[str]) -> str:
    if any(f.severity.rank >= Severity.WARNING.rank for f in findings):
        return "issues"
    if findings:
        return "info"
    return "ok" if passed else "not checked"


def build_audit(reports: list[Report], signals: Signals, *, subject: str, mode: str,
                live_time_columns: list[str] | None = None, env_start: str | None = None,
                provenance: dict[str, Any] | None = None, rerun: dict[str, Any] | None = None,
                checkpoints: list[dict[str, Any]] | None = None, run: dict[str, Any] | None = None,
                extra_findings: list[Finding] | None = None) -> AuditReport:
    """The review. `reports` come from the engine (static rules); `extra_findings` from runtime/artifact checks."""
    findings = [f for r in reports for f in r.findings] + list(extra_findings or [])
    suppressed: list[Suppressed] = [s for r in reports for s in r.suppressed]
    rules_run = {rid for r in reports for rid in r.rules_run}
    rules_run |= {f.rule_id for f in extra_findings or []}
    for ck in checkpoints or []:
        rules_run.add("CKPT101")
        if ck.get("components"):
            rules_run |= {f"CKPT10{i}" for i in range(2, 9)}
    skipped: dict[str, str] = {}
    for r in reports:
        for rid, why in r.skipped_rules.items():
            skipped.setdefault(rid, why)
    catalogue = {r.id: r for r in all_rules()}
    for rid, r in catalogue.items():
        if mode != "last-run" and r.scope == "runtime" and rid not in rules_run and rid not in skipped:
            skipped[rid] = "runtime check: evaluated on live objects or files, not by static analysis"
    audit = AuditReport(subject=subject, mode=mode, findings=by_priority(findings), ignored=suppressed,
                        skipped=skipped, provenance=dict(provenance or {}), rerun=rerun,
                        checkpoints=list(checkpoints or []), run=run,
                        generated_at=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    grouped = _group(findings)
    applicability = _applicability(signals, live_time_columns or [], checkpoints or [], run)
    if mode == "checkpoint":
        for key in ("reproducibility", "split", "temporal", "tracking"):
            applicability[key] = "only checkpoint files were reviewed"
    passed_by_part: dict[str, list[str]] = {}
    with_findings = {f.rule_id for f in findings} | {s.finding.rule_id for s in suppressed}
    for rid in sorted(rules_run - with_findings):
        r: Rule | None = catalogue.get(rid)
        part = part_of(rid, r.category if r else "")
        why_na = applicability.get(part)
        if why_na:
            audit.not_applicable[rid] = why_na
        else:
            audit.passed.append(rid)
            passed_by_part.setdefault(part, []).append(rid)
    builders = {"reproducibility": _reproducibility, "split": _split, "temporal": _temporal,
                "checkpointing": _checkpointing, "tracking": _tracking}
    for key, fn in builders.items():
        part_findings = by_priority(grouped.get(key, []))
        passed = passed_by_part.get(key, [])
        why_na = applicability.get(key)
        part = Part(key, PART_TITLES[key], "", "", findings=part_findings, passed=passed)
        if why_na and not part_findings:
            part.status, part.not_applicable = "not applicable", why_na
            part.verdict = f"Not applicable: {why_na}."
        else:
            part.status = _status(part_findings, passed)
        fn(part, audit, signals, env_start=env_start, live_time_columns=live_time_columns or [])
        for f in part_findings:
            part.lines.append(Line(f"{f.rule_id} ({f.severity.value})", f.message, _finding_where(f),
                                   _cell_key(f)))
        audit.parts.append(part)
    audit.parts.append(Part("findings", PART_TITLES["findings"], _status(findings, audit.passed),
                            f"{len(findings)} finding(s): " + ", ".join(f"{n} {k}" for k, n in
                                                                        audit.counts().items()),
                            findings=audit.findings, passed=audit.passed))
    audit.next_action = _next_action(audit)
    audit.parts.append(Part("next", PART_TITLES["next"], "issues" if audit.next_action.get("rule_id") else "ok",
                            audit.next_action["text"]))
    for f in findings:
        key = _cell_key(f)
        if key and key in signals.cells:
            audit.cells[key] = signals.cells[key]
    return audit


def _cell_key(f: Finding) -> str:
    return f"{f.location.path}#{f.location.cell}" if f.location.cell is not None else ""


def _applicability(s: Signals, time_cols: list[str], checkpoints: list[dict[str, Any]],
                   run: dict[str, Any] | None) -> dict[str, str]:
    """Part -> why it does not apply (absent when it applies)."""
    out: dict[str, str] = {}
    trains = bool(s.imports & ML_MODULES) or bool(s.fits) or bool(s.training) or run is not None
    if not trains:
        out["split"] = "no training code (sklearn/torch/...) was seen"
        out["tracking"] = "no training code was seen"
    temporal = s.time_evidence or time_cols or any(f.data.get("splitter") == "TimeSeriesSplit" for f in s.splits)
    if not temporal:
        out["temporal"] = "no time column, datetime parsing or time-series splitter was seen"
    if not (s.uses_torch or s.saves or checkpoints):
        out["checkpointing"] = "no PyTorch training and no checkpoint was seen"
    return out


# -- part builders ---------------------------------------------------------------------------------------------

_FAMILY_LABEL = {"python": "Python random", "numpy": "NumPy", "torch": "PyTorch",
                 "sklearn": "scikit-learn random_state"}


def _reproducibility(part: Part, audit: AuditReport, s: Signals, env_start: str | None, **_: Any) -> None:
    if part.status == "not applicable":
        return
    seeded: dict[str, Fact] = {}
    for f in s.seeds:
        fam = f.data.get("family")
        if fam == "all":
            for k in ("python", "numpy", "torch"):
                seeded.setdefault(k, f)
        elif fam == "numpy-generator":
            seeded.setdefault("numpy", f)
        elif fam:
            seeded.setdefault(fam, f)
    used = dict(s.rng_users)
    if s.uses_torch and "torch" not in used:
        used["torch"] = Fact("rng", "torch imported", None)
    covered = []
    for fam in ("python", "numpy", "torch", "sklearn"):
        if fam not in used and fam not in seeded:
            continue
        if fam in seeded:
            where, key = _where(seeded[fam])
            part.lines.append(Line(f"Seeding: {_FAMILY_LABEL[fam]}", f"seeded ({seeded[fam].detail})", where, key))
            covered.append(True)
        else:
            where, key = _where(used[fam])
            part.lines.append(Line(f"Seeding: {_FAMILY_LABEL[fam]}", f"used ({used[fam].detail}), NOT seeded",
                                   where, key))
            covered.append(False)
    if not covered:
        part.lines.append(Line("Seeding", "no random number generator use was seen"))
    for f in s.determinism:
        part.lines.append(_fact_line("Determinism", f))
    if s.uses_torch and not s.determinism:
        part.lines.append(Line("Determinism", "torch deterministic algorithms / cuDNN flags not set"))
    part.lines.append(environment_line(env_start))
    rr = audit.rerun
    if rr is None:
        part.lines.append(Line("Rerun", "not checked (run `%trainaudit --rerun CELL --metric NAME`)"))
    elif rr.get("error"):
        part.lines.append(Line("Rerun", f"could not run: {rr['error']}"))
    else:
        part.lines.append(Line("Rerun", rr["summary"]))
    coverage = f"{sum(covered)}/{len(covered)} RNG families seeded" if covered else "no RNG use seen"
    if rr and not rr.get("error") and rr.get("matched") is False:
        part.status = "issues"
        cell = rr.get("label") or cell_label(None, rr["cell"])
        part.verdict = f"NOT REPRODUCIBLE: the rerun of {cell} gave a different {rr['metric']}; {coverage}."
    elif part.status == "issues" or (covered and not all(covered)):
        part.status = "issues"
        part.verdict = f"AT RISK: {coverage}; " + (f"{len(part.findings)} finding(s)." if part.findings
                                                    else "see the seeding lines.")
    elif rr and rr.get("matched"):
        part.verdict = f"REPRODUCED: the rerun matched within tolerance; {coverage}."
    else:
        part.verdict = f"No reproducibility problem found statically; {coverage}; rerun not checked."
        if part.status == "not checked":
            part.status = "ok" if covered else "not checked"


def _split(part: Part, audit: AuditReport, s: Signals, **_: Any) -> None:
    if part.status == "not applicable":
        return
    if s.splits:
        for f in s.splits:
            part.lines.append(_fact_line("Split", f))
    else:
        part.lines.append(Line("Split", "no train/test split or cross-validation was seen"))
    preprocessing = [f for f in s.fits if f.data.get("role") != "model"]
    for f in preprocessing:
        part.lines.append(_fact_line("Preprocessing fit", f))
    if not preprocessing:
        part.lines.append(Line("Preprocessing fit", "no scaler/encoder/imputer/resampler fit was seen"))
    leaks = [f for f in part.findings if f.severity.rank >= Severity.WARNING.rank]
    early = [f for f in preprocessing if f.data.get("before_split")]
    if leaks:
        cats = sorted({f.category for f in leaks})
        part.verdict = f"LEAKAGE RISK: {len(leaks)} finding(s) ({', '.join(cats)}); reported metrics may be inflated."
    elif early:
        part.status = "issues"
        part.verdict = (f"LEAKAGE RISK: {early[0].data.get('class')} is fitted before the split ({early[0].where()}), "
                        "so test rows shape the training features.")
    elif part.passed:
        part.verdict = f"No leakage found by {len(part.passed)} rule(s) that ran."
    else:
        part.verdict = "No leakage rule ran on this code."


def _temporal(part: Part, audit: AuditReport, s: Signals, live_time_columns: list[str], **_: Any) -> None:
    if part.status == "not applicable":
        return
    for f in s.time_evidence[:6]:
        part.lines.append(_fact_line("Time data", f))
    for col in live_time_columns[:6]:
        part.lines.append(Line("Time data (live)", col))
    chrono = [f for f in s.splits if f.data.get("chronological")]
    randoms = [f for f in s.splits if not f.data.get("chronological")]
    for f in chrono:
        part.lines.append(_fact_line("Chronological split", f))
    for f in randoms:
        part.lines.append(_fact_line("Non-chronological split", f))
    if part.findings and part.status == "issues":
        part.verdict = "NOT CHRONOLOGICAL: time-ordered data is split or validated so the model can see the future."
    elif randoms and not chrono:
        part.status = "issues"
        part.verdict = "AT RISK: time data is present but only random splits were seen."
    elif chrono:
        part.verdict = "Chronological handling seen; no temporal leakage found."
        if part.status == "not checked":
            part.status = "ok"
    else:
        part.verdict = "Time data present; no split seen to check."


def _components_text(comps: list[str]) -> str:
    return ", ".join(COMPONENTS.get(c, c) for c in comps) or "nothing recognised"


def _checkpointing(part: Part, audit: AuditReport, s: Signals, **_: Any) -> None:
    persisted: set[str] = set()
    for f in s.saves:
        comps = f.data.get("components", [])
        persisted |= set(comps)
        part.lines.append(_fact_line("Persisted", f, f"{f.detail}: {_components_text(comps)}"))
    restored = sorted({f.data.get("component", "") for f in s.loads if f.kind == "restore"} - {""})
    for f in s.loads:
        part.lines.append(_fact_line("Restore" if f.kind == "restore" else "Load", f))
    for ck in audit.checkpoints:
        present = [c for c, ok in ck.get("components", {}).items() if ok]
        part.lines.append(Line("Checkpoint file", f"{ck.get('path')}: {_components_text(present)}"
                               + ("; resume restarts the schedule" if ck.get("resume_restarts_schedule") else "")))
        persisted |= set(present)
    if part.status == "not applicable":
        return
    missing = [c for c in RESUME_NEEDS if c not in persisted]
    if not s.saves and not audit.checkpoints:
        part.lines.append(Line("Resume", "no checkpoint is written: an interrupted run restarts from scratch"))
        part.status = "issues" if s.training else part.status
        part.verdict = "NOT RESUMABLE: nothing is checkpointed."
    elif missing:
        part.lines.append(Line("Resume", "cannot resume exactly; missing " + _components_text(missing)))
        part.status = "issues"
        part.verdict = "NOT RESUMABLE: checkpoints lack " + _components_text(missing) + "."
    else:
        extra = [c for c in ("scheduler", "rng") if c not in persisted]
        part.verdict = "Resumable: model, optimizer and progress are persisted" + (
            f" (not persisted: {_components_text(extra)})." if extra else ".")
        if part.status == "not checked":
            part.status = "ok"
    if restored:
        part.lines.append(Line("Resume code restores", _components_text(restored)))


_TRACK_ITEMS = [("run", "Run opened"), ("params", "Params"), ("metrics", "Metrics"),
                ("dataset", "Dataset version/hash"), ("commit", "Code commit")]


def _tracking(part: Part, audit: AuditReport, s: Signals, **_: Any) -> None:
    if part.status == "not applicable":
        return
    seen: dict[str, Fact] = {}
    for f in s.tracking:
        seen.setdefault(f.data.get("what", ""), f)
    autolog = "autolog" in seen
    if autolog:
        for k in ("run", "params", "metrics"):
            seen.setdefault(k, seen["autolog"])
    tools = sorted({f.data.get("tool", "") for f in s.tracking} - {""})
    part.lines.append(Line("Tracker", ", ".join(tools) if tools else "none (no MLflow / W&B calls seen)"))
    logged_by_tg = audit.provenance.get("mlflow", {}) if isinstance(audit.provenance.get("mlflow"), dict) else {}
    for key, label in _TRACK_ITEMS:
        if key in seen:
            part.lines.append(_fact_line(label, seen[key], f"logged ({seen[key].detail})"))
        elif key in ("commit", "dataset") and logged_by_tg.get("run_id"):
            part.lines.append(Line(label, f"logged by trainguard to run {logged_by_tg['run_id']}"))
        else:
            part.lines.append(Line(label, "not logged"))
    missing = [label for key, label in _TRACK_ITEMS if key not in seen
               and not (key in ("commit", "dataset") and logged_by_tg.get("run_id"))]
    if not tools:
        part.status = "issues"
        part.verdict = "UNTRACKED: runs are not logged, so results cannot be compared or attributed."
    elif missing:
        part.status = "issues"
        part.verdict = "PARTIAL: not logged: " + ", ".join(missing) + "."
    else:
        part.verdict = "Tracked: params, metrics, dataset version and commit are logged."
        if part.status == "not checked":
            part.status = "ok"


def _next_action(audit: AuditReport) -> dict[str, Any]:
    ranked = [f for f in audit.findings if f.severity.rank >= Severity.WARNING.rank] or audit.findings
    if ranked:
        f = ranked[0]
        if f.location.cell is not None:
            where = f"{Path(f.location.path).name}, {_finding_where(f)}"
        else:  # a live-session finding named by its execution count ("[In 3]"), else the subject
            where = _finding_where(f) if f.location.cell_text else f.location.path
        fix = f.fix or "see `trainguard explain " + f.rule_id + "`"
        return {"rule_id": f.rule_id, "category": f.category, "severity": f.severity.value,
                "where": where, "fix": fix, "message": f.message,
                "text": f"{fix} ({f.rule_id} at {where}: {f.message})"}
    rr = audit.rerun
    if rr and rr.get("matched") is False:
        return {"text": f"Seed every RNG at the top of cell {rr['cell']} and rerun until {rr['metric']} reproduces."}
    order = {"split": 0, "temporal": 1, "reproducibility": 2, "checkpointing": 3, "tracking": 4}
    for p in sorted(audit.parts, key=lambda p: order.get(p.key, 9)):
        if p.status == "issues":
            return {"text": f"{p.title}: {p.verdict}"}
    if rr is None and audit.mode == "session":
        return {"text": "No issue found. Confirm the metric reproduces: `%trainaudit --rerun CELL --metric NAME`."}
    return {"text": "No issue found by the checks that ran; nothing to fix."}

