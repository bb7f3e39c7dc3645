"""The review as text (terminal), Markdown (files, GitHub) and HTML (saved notebooks). All user text is escaped."""

from __future__ import annotations

import json
from collections import defaultdict

from ..display.bundle import escape, inline_code
from ..findings import Finding
from ..impact.render import impact_html, impact_of, impact_text
from ..output.markdown import md_escape
from .model import AuditReport, Part

STATUS_MARK = {"issues": "✗", "ok": "✓", "info": "i", "not applicable": "–", "not checked": "?"}


def where(f: Finding) -> str:
    loc = f.location
    out = loc.cell_text  # "cell 3 [In 2]"; "[In 2]" in a live session (findings.cell_label)
    if not out:
        return loc.path
    if loc.line:
        out += f", line {loc.line}"
    return out


def _grouped(mapping: dict[str, str]) -> list[tuple[str, list[str]]]:
    by_reason: dict[str, list[str]] = defaultdict(list)
    for rid, why in sorted(mapping.items()):
        by_reason[why].append(rid)
    return sorted(by_reason.items(), key=lambda kv: kv[1][0])


def _counts_text(audit: AuditReport) -> str:
    c = audit.counts()
    return f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info"


def _prov_lines(audit: AuditReport) -> list[tuple[str, str]]:
    prov = audit.provenance
    out: list[tuple[str, str]] = []
    if not prov:
        return out
    out.append(("Notebook", prov.get("notebook") or "unknown (not reported by the frontend)"))
    git = prov.get("git") or {}
    out.append(
        (
            "Git commit",
            f"{git['commit']}" + (" (dirty: uncommitted changes)" if git.get("dirty") else " (clean)")
            if git.get("commit")
            else "no git repository",
        )
    )
    if prov.get("python"):
        out.append(("Python", prov["python"]))
    mlf = prov.get("mlflow")
    if mlf:
        out.append(
            (
                "MLflow",
                f"provenance tags and the report logged to run {mlf.get('run_id')}"
                + (f"; existing params kept: {', '.join(mlf['params_kept'])}" if mlf.get("params_kept") else ""),
            )
        )
    return out


# -- text ---------------------------------------------------------------------------------------------------------


def render_text(audit: AuditReport) -> str:
    out = [f"Training pipeline review: {audit.subject}", f"{_counts_text(audit)}", ""]
    for p in audit.parts:
        out.append(f"{p.title}  [{STATUS_MARK.get(p.status, '?')} {p.status}]")
        if p.key == "findings":
            for f in audit.findings:
                out.append(f"  {where(f)}: {f.rule_id} {f.severity.value}: {f.message}")
                if f.impact:
                    out.append(f"      impact: {f.impact}")
                if impact_of(f):
                    out.append(f"      {impact_text(impact_of(f))}")
                if f.fix:
                    out.append(f"      fix:    {f.fix}")
            if not audit.findings:
                out.append("  no findings")
        else:
            out.append(f"  {p.verdict}")
            for ln in p.lines:
                out.append(f"  - {ln.label}: {ln.value}" + (f"  ({ln.where})" if ln.where else ""))
        out.append("")
    out += _checked_text(audit)
    for label, value in _prov_lines(audit):
        out.append(f"{label}: {value}")
    for name, info in (audit.provenance.get("datasets") or {}).items():
        out.append(f"Dataset {name}: {info.get('type')} {info.get('shape')} sha256={info.get('sha256')}")
    for note in audit.notes:
        out.append(f"Note: {note}")
    return "\n".join(out).rstrip()


def _checked_text(audit: AuditReport) -> list[str]:
    out = [
        "What was checked:",
        f"  issues ({len(audit.findings)}): " + (", ".join(sorted({f.rule_id for f in audit.findings})) or "-"),
        f"  passed ({len(audit.passed)}): " + (", ".join(sorted(audit.passed)) or "-"),
    ]
    out.append(f"  not applicable ({len(audit.not_applicable)})" + ("" if audit.not_applicable else ": -"))
    for why, ids in _grouped(audit.not_applicable):
        out.append(f"    {', '.join(ids)}: {why}")
    out.append(f"  skipped ({len(audit.skipped)})" + ("" if audit.skipped else ": -"))
    for why, ids in _grouped(audit.skipped):
        out.append(f"    {', '.join(ids)}: {why}")
    out.append(f"  ignored ({len(audit.ignored)})" + ("" if audit.ignored else ": -"))
    for s in audit.ignored:
        out.append(f"    {s.finding.rule_id} at {where(s.finding)}: {s.reason}")
    out.append("")
    return out


# -- markdown -----------------------------------------------------------------------------------------------------


def _fence(code: str) -> str:
    """A backtick fence longer than any backtick run in the code."""
    ticks = 3
    while "`" * ticks in code:
        ticks += 1
    return "`" * ticks


def render_markdown(audit: AuditReport, include_code: bool = True) -> str:
    m = md_escape
    out = [
        f"# Training pipeline review: {m(audit.subject)}",
        "",
        f"{_counts_text(audit)} · trainguard {m(audit.to_dict()['tool']['version'])}",
        "",
    ]
    for p in audit.parts:
        out.append(f"## {p.title}")
        out.append("")
        if p.key == "findings":
            if audit.findings:
                out.append("| location | rule | issue | impact on metric honesty | fix |")
                out.append("|---|---|---|---|---|")
                for f in audit.findings:
                    out.append(
                        f"| {m(where(f))} | {f.rule_id} ({f.severity.value}) | {m(f.message)} | "
                        f"{_impact_md(f)} | {m(f.fix)} |"
                    )
            else:
                out.append("No findings.")
            out.append("")
            continue
        if p.key == "next":
            out.append(f"> {m(p.verdict)}")
            out.append("")
            continue
        out.append(f"**{m(p.verdict)}**")
        out.append("")
        rows = list(p.lines)
        if rows:
            out.append("| check | observation | where |")
            out.append("|---|---|---|")
            for ln in rows:
                out.append(f"| {m(ln.label)} | {m(ln.value)} | {m(ln.where)} |")
            out.append("")
    out += _checked_markdown(audit)
    out += _provenance_markdown(audit)
    if include_code and audit.cells:
        out += ["## Cells with findings", ""]
        # each cell named as its findings name it ("cell 5 [In 3]"; "[In 3]" for a session cell not in a notebook)
        names = {f"{f.location.path}#{f.location.cell}": f.location.cell_text for f in audit.findings}
        for key, code in sorted(audit.cells.items(), key=lambda kv: _cell_sort(kv[0])):
            path, _, idx = key.rpartition("#")
            fence = _fence(code)
            name = names.get(key) or f"cell {int(idx) + 1}"
            out += [f"**{m(path)}, {m(name)}**", "", f"{fence}python", code, fence, ""]
    return "\n".join(out).rstrip() + "\n"


def _impact_md(f: Finding) -> str:
    """The rule's impact text, then what this leak measurably did to the reported metric (when measured)."""
    rec = impact_of(f)
    if rec is None:
        return md_escape(f.impact)
    lead = "**measured:** " if rec.get("status") == "measured" else ""
    return md_escape(f.impact) + "<br>" + lead + md_escape(impact_text(rec).removeprefix("measured impact: "))


def _cell_sort(key: str) -> tuple[str, int]:
    path, _, idx = key.rpartition("#")
    return path, int(idx) if idx.isdigit() else 0


def _checked_markdown(audit: AuditReport) -> list[str]:
    m = md_escape
    out = ["## What was checked", ""]
    out.append(
        f"- **Issues ({len(audit.findings)})**: " + (", ".join(sorted({f.rule_id for f in audit.findings})) or "none")
    )
    out.append(f"- **Passed ({len(audit.passed)})**: " + (", ".join(sorted(audit.passed)) or "none"))
    out.append(f"- **Not applicable ({len(audit.not_applicable)})**" + ("" if audit.not_applicable else ": none"))
    for why, ids in _grouped(audit.not_applicable):
        out.append(f"  - {', '.join(ids)}: {m(why)}")
    out.append(f"- **Skipped ({len(audit.skipped)})**" + ("" if audit.skipped else ": none"))
    for why, ids in _grouped(audit.skipped):
        out.append(f"  - {', '.join(ids)}: {m(why)}")
    out.append(f"- **Ignored ({len(audit.ignored)})**" + ("" if audit.ignored else ": none"))
    for s in audit.ignored:
        out.append(f"  - {s.finding.rule_id} at {m(where(s.finding))}: {m(s.reason)}")
    out.append("")
    return out


def _provenance_markdown(audit: AuditReport) -> list[str]:
    m = md_escape
    out: list[str] = []
    lines = _prov_lines(audit)
    pkgs = audit.provenance.get("packages") or {}
    datasets = audit.provenance.get("datasets") or {}
    if not lines and not datasets and not audit.checkpoints and not audit.run:
        return out
    out += ["## Provenance", ""]
    for label, value in lines:
        out.append(f"- {label}: {m(value)}")
    if pkgs:
        out.append("- Packages: " + m(", ".join(f"{k} {v}" for k, v in sorted(pkgs.items()))))
    out.append("")
    if datasets:
        out += ["| dataset | type | shape | columns | sha256 (whole data) |", "|---|---|---|---|---|"]
        for name, info in datasets.items():
            cols = info.get("columns") or []
            col_text = ", ".join(cols[:12]) + (f" … (+{len(cols) - 12})" if len(cols) > 12 else "")
            shape = "×".join(str(d) for d in info.get("shape", []))
            out.append(
                f"| {m(name)} | {m(info.get('type', ''))} | {shape} | {m(col_text)} | "
                f"{m(info.get('sha256') or info.get('note', ''))} |"
            )
        out.append("")
    for ck in audit.checkpoints:
        comps = ck.get("components") or {}
        out.append(
            f"- Checkpoint {m(ck['path'])} (opened as {m(ck.get('loaded_as') or '-')}): "
            + ", ".join(f"{k} {'✓' if v else '✗'}" for k, v in comps.items())
            + (f"; {m(ck['error'])}" if ck.get("error") else "")
        )
    if audit.run:
        out.append("- Guarded run: " + m(json.dumps(audit.run, default=str)[:1000]))
    out.append("")
    return out


# -- html ---------------------------------------------------------------------------------------------------------

_SEV_COLOUR = {"error": "#c62828", "warning": "#ef6c00", "info": "#1565c0"}
_STATUS_COLOUR = {
    "issues": "#c62828",
    "ok": "#2e7d32",
    "info": "#1565c0",
    "not applicable": "#757575",
    "not checked": "#757575",
}


def _part_html(p: Part) -> str:
    e = escape
    colour = _STATUS_COLOUR.get(p.status, "#757575")
    rows = "".join(
        f"<tr><td>{e(ln.label)}</td><td>{e(ln.value)}</td><td style='white-space:nowrap'>{e(ln.where)}</td></tr>"
        for ln in p.lines
    )
    table = f"<table class='tg-lines'>{rows}</table>" if rows else ""
    return (
        f"<h4 style='margin:8px 0 2px 0'>{e(p.title)} <span style='color:{colour}'>[{e(p.status)}]</span></h4>"
        f"<div><b>{e(p.verdict)}</b></div>{table}"
    )


def findings_table_html(findings: list[Finding]) -> str:
    e = escape
    if not findings:
        return "<p>No findings.</p>"
    head = "<tr><th>location</th><th>rule</th><th>issue</th><th>impact on metric honesty</th><th>fix</th></tr>"
    rows = []
    for f in findings:
        col = _SEV_COLOUR[f.severity.value]
        rows.append(
            f"<tr><td style='white-space:nowrap'>{e(where(f))}</td><td><span style='color:{col}'>"
            f"{e(f.rule_id)} ({e(f.severity.value)})</span></td><td>{inline_code(f.message)}</td>"
            f"<td>{e(f.impact)}{'<br>' + impact_html(impact_of(f)) if impact_of(f) else ''}</td>"
            f"<td>{e(f.fix)}</td></tr>"
        )
    return f"<table class='tg-findings'>{head}{''.join(rows)}</table>"


def checked_html(audit: AuditReport) -> str:
    e = escape
    items = [
        f"<li><b>Issues ({len(audit.findings)})</b>: "
        f"{e(', '.join(sorted({f.rule_id for f in audit.findings})) or 'none')}</li>",
        f"<li><b>Passed ({len(audit.passed)})</b>: {e(', '.join(sorted(audit.passed)) or 'none')}</li>",
    ]
    for label, mapping in (("Not applicable", audit.not_applicable), ("Skipped", audit.skipped)):
        sub = "".join(f"<li>{e(', '.join(ids))}: {e(why)}</li>" for why, ids in _grouped(mapping))
        items.append(f"<li><b>{label} ({len(mapping)})</b>" + (f"<ul>{sub}</ul>" if sub else ": none") + "</li>")
    sub = "".join(f"<li>{e(s.finding.rule_id)} at {e(where(s.finding))}: {e(s.reason)}</li>" for s in audit.ignored)
    items.append(f"<li><b>Ignored ({len(audit.ignored)})</b>" + (f"<ul>{sub}</ul>" if sub else ": none") + "</li>")
    return f"<ul>{''.join(items)}</ul>"


def provenance_html(audit: AuditReport) -> str:
    e = escape
    rows = "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in _prov_lines(audit))
    pkgs = audit.provenance.get("packages") or {}
    if pkgs:
        rows += f"<tr><td>Packages</td><td>{e(', '.join(f'{k} {v}' for k, v in sorted(pkgs.items())))}</td></tr>"
    data = "".join(
        f"<tr><td>{e(n)}</td><td>{e(i.get('type'))}</td><td>{e('×'.join(str(d) for d in i.get('shape', [])))}</td>"
        f"<td>{e(', '.join((i.get('columns') or [])[:12]))}</td><td><code>{e(i.get('sha256') or i.get('note'))}"
        f"</code></td></tr>"
        for n, i in (audit.provenance.get("datasets") or {}).items()
    )
    if data:
        data = (
            "<table><tr><th>dataset</th><th>type</th><th>shape</th><th>columns</th><th>sha256 (whole data)"
            f"</th></tr>{data}</table>"
        )
    return f"<table>{rows}</table>{data}"


def render_html(audit: AuditReport) -> str:
    e = escape
    parts = []
    for p in audit.parts:
        if p.key == "findings":
            parts.append(f"<h4 style='margin:8px 0 2px 0'>{e(p.title)}</h4>{findings_table_html(audit.findings)}")
        elif p.key == "next":
            parts.append(f"<h4 style='margin:8px 0 2px 0'>{e(p.title)}</h4><blockquote>{e(p.verdict)}</blockquote>")
        else:
            parts.append(_part_html(p))
    return (
        "<div class='trainguard-audit'>"
        f"<h3 style='margin:4px 0'>Training pipeline review: {e(audit.subject)}</h3>"
        f"<div>{e(_counts_text(audit))}</div>{''.join(parts)}"
        f"<details><summary>What was checked</summary>{checked_html(audit)}</details>"
        f"<details><summary>Provenance</summary>{provenance_html(audit)}</details></div>"
    )


def render_json(audit: AuditReport) -> str:
    return json.dumps(audit.to_dict(), indent=2, default=str)


def render(audit: AuditReport, fmt: str) -> str:
    fmt = {"markdown": "md"}.get(fmt, fmt)
    if fmt == "md":
        return render_markdown(audit)
    if fmt == "json":
        return render_json(audit)
    if fmt == "html":
        return render_html(audit)
    if fmt == "text":
        return render_text(audit)
    raise ValueError(f"unknown format {fmt!r}: choose text, md, json or html")
