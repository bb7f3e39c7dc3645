"""The `%%guarded_train` result: one panel (Checks, Memory, Reproducibility, Tracking) with text/HTML fallbacks."""

from __future__ import annotations

from typing import Any

from ..findings import Location
from ..impact.render import impact_html as _impact_html
from ..impact.render import impact_of as _impact
from ..impact.render import impact_text as _impact_text
from .bundle import RUN_MIME, escape, inline_code, publish
from .timeline_svg import thin, timeline_svg

TABS = ("Checks", "Memory", "Reproducibility", "Tracking")
_SEV_COLOR = {"error": "#c0392b", "warning": "#d68910", "info": "#2e86c1"}


def _fmt(n: Any) -> str:
    from ..runtime.oom import fmt_bytes

    return fmt_bytes(n) if isinstance(n, (int, float)) else "n/a"


def headline(d: dict[str, Any]) -> str:
    c = d["counts"]
    status = {"ok": "ran", "failed": "FAILED", "refused": "REFUSED (--strict)"}.get(d["status"], d["status"])
    mem = d.get("memory") or {}
    peak = f", peak {_fmt(mem.get('peak_allocated'))}" if mem else ""
    def n(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    return (f"guarded_train: cell {status} in {d['duration_s']:.2f} s; {n(c['error'], 'error')}, "
            f"{n(c['warning'], 'warning')}, {n(c['info'], 'note')}{peak}")


# ---- text ---------------------------------------------------------------------------------------------------
def render_text(d: dict[str, Any]) -> str:
    lines = [headline(d)]
    if d.get("refused_because"):
        lines.append("Refused because: " + "; ".join(d["refused_because"]))
    for f in d["findings"]:
        where = _where(f)
        lines.append(f"  {f['severity'].upper():7} {f['rule_id']:9} {f['message']}{where}")
        if _impact(f):  # what the leak did to the reported metric (jupyter_trainguard.impact)
            lines.append(f"  {'':7} {'':9} {_impact_text(_impact(f))}")
    mem = d.get("memory") or {}
    if mem:
        lines.append(f"Memory ({mem['backend']}): start {_fmt(mem['start_allocated'])}, peak "
                     f"{_fmt(mem['peak_allocated'])} ({mem['peak_source']}), end {_fmt(mem['end_allocated'])}, "
                     f"retained {_fmt(mem['retained'])}, {mem['steps']} optimizer steps")
    est = d.get("estimate")
    if est:
        lines.append("Estimate: " + (est.get("summary") or est.get("reason") or ""))
    s = d.get("seeding") or {}
    if s:
        lines.append("Seeding: seeded " + (", ".join(sorted(s.get("seeded", {}))) or "none") + "; unseeded "
                     + (", ".join(s.get("unseeded", [])) or "none") + (f"; --seed {s['seed']}" if s.get("seed")
                                                                          is not None else ""))
    err = d.get("error")
    if err:
        lines.append(f"Error: {err['type']}" + (" (out of memory)" if err.get("oom") else ""))
        cl = d.get("cleanup") or {}
        if "freed" in cl:
            lines.append(f"Cleanup: freed {_fmt(cl['freed'])} held by the failed frames")
    if d.get("report_path"):
        lines.append(f"Report: {d['report_path']}")
    return "\n".join(lines)


def place(f: dict[str, Any]) -> str:
    """"cell 4 [In 2], line 5" for a finding about another cell; "" for runtime findings (about this cell)."""
    if f.get("source") == "runtime":
        return ""
    loc = Location.from_dict(f.get("location") or {})
    parts = [loc.cell_text] if loc.cell_text else []
    if loc.line is not None:
        parts.append(f"line {loc.line}")
    return ", ".join(parts)


def _where(f: dict[str, Any]) -> str:
    text = place(f)
    return f"  ({text})" if text else ""


# ---- HTML sections -----------------------------------------------------------------------------------------
def checks_html(d: dict[str, Any]) -> str:
    out = []
    if d.get("refused_because"):
        out.append('<p style="color:#c0392b"><b>The cell was not run (--strict):</b> '
                   + "; ".join(inline_code(r) for r in d["refused_because"]) + "</p>")
    if not d["findings"]:
        out.append("<p>No findings: static rules and runtime checks passed.</p>")
    else:
        rows = "".join(
            f'<tr><td style="color:{_SEV_COLOR.get(f["severity"], "#000")}">{escape(f["severity"])}</td>'
            f'<td><code>{escape(f["rule_id"])}</code></td><td>{escape(f["source"])}</td>'
            f'<td>{inline_code(f["message"])}' + (f'<br>{_impact_html(_impact(f))}' if _impact(f) else '')
            + f'</td><td>{escape(place(f))}</td></tr>'
            for f in d["findings"])
        out.append('<table class="trainguard-findings"><tr><th>severity</th><th>rule</th><th>source</th>'
                   f"<th>message</th><th>where</th></tr>{rows}</table>")
    rt = d.get("runtime") or {}
    st = d.get("static") or {}
    splits = rt.get("splits") or []
    if splits:
        out.append("<p>Splits checked: " + ", ".join(
            f"<code>{escape(s['name'])}</code> ({escape(s['role'])}{', label' if s['label'] else ''}, "
            f"{escape(s['kind'])}, {s['rows'] if s['rows'] is not None else '?'} rows)" for s in splits) + "</p>")
    out.append(f"<p style='color:#666'>static rules: {st.get('rules_run', 0)} in {st.get('elapsed_ms', 0):.1f} ms; "
               f"runtime checks: {rt.get('elapsed_ms', 0):.1f} ms</p>")
    for sup in d.get("suppressed") or []:
        out.append(f"<p style='color:#666'>suppressed: {escape(sup)}</p>")
    for note in rt.get("notes") or []:
        out.append(f"<p style='color:#666'>note: {escape(note)}</p>")
    return "".join(out)


def memory_html(d: dict[str, Any]) -> str:
    mem = d.get("memory") or {}
    est = d.get("estimate") or {}
    out = []
    if mem:
        rows = [("backend", mem["backend"] + ("" if mem["is_device"] else " (host process memory, no CUDA)")),
                ("allocated at start", _fmt(mem["start_allocated"])),
                ("peak (this cell)", f"{_fmt(mem['peak_allocated'])} ({mem['peak_source']})"),
                ("allocated at end", _fmt(mem["end_allocated"])), ("retained after the cell", _fmt(mem["retained"]))]
        if mem["is_device"]:
            rows.append(("reserved − allocated at end", _fmt(mem["end_reserved"] - mem["end_allocated"])))
        if mem.get("device_total"):
            rows.append(("device free / total", f"{_fmt(mem['device_free'])} / {_fmt(mem['device_total'])}"))
        rows.append(("optimizer steps", str(mem["steps"])))
        if mem.get("user_peak_resets"):
            rows.append(("peak resets by the cell (folded in)", str(mem["user_peak_resets"])))
        for k, v in (mem.get("counters_delta") or {}).items():
            if v:
                rows.append((k, str(v)))
        if est.get("available"):
            total = est.get("total_bytes")
            ratio = f" (measured/estimate {mem['peak_allocated'] / total:.2f})" if total else ""
            rows.append(("estimate", f"{_fmt(total)}{ratio}"))
        out.append("<table>" + "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in rows)
                   + "</table>")
        svg = timeline_svg(mem, est.get("total_bytes") if est.get("available") else None, max_points=60,
                           max_markers=60)
        if svg:
            out.append(svg)
        largest = mem.get("largest_objects") or []
        if largest:
            out.append("<p>Largest objects: " + ", ".join(
                f"<code>{escape(o['name'])}</code> {escape(o['kind'])} {_fmt(o['bytes'])} on {escape(o['device'])}"
                for o in largest) + "</p>")
    if est and not est.get("available"):
        out.append(f"<p>Estimate: {escape(est.get('reason', 'not available'))}</p>")
    elif est.get("summary"):
        out.append(f"<pre>{escape(est['summary'])}</pre>")
    return "".join(out) or "<p>Not measured (the cell did not run).</p>"


def repro_html(d: dict[str, Any]) -> str:
    s = d.get("seeding") or {}
    rows = []
    for rng, used in (s.get("in_use") or {}).items():
        how = (s.get("seeded") or {}).get(rng)
        state = "seeded: " + how if how else ("NOT seeded" if used else "not in use")
        rows.append(f"<tr><td>{escape(rng)}</td><td>{escape(state)}</td></tr>")
    out = ["<table>" + "".join(rows) + "</table>"]
    if s.get("deterministic"):
        out.append("<p>Determinism applied: " + ", ".join(f"{escape(k)}={escape(v)}" for k, v in
                                                          s["deterministic"].items()) + "</p>")
    for p in s.get("problems") or []:
        out.append(f"<p style='color:#d68910'>{escape(p)}</p>")
    return "".join(out)


def tracking_html(d: dict[str, Any]) -> str:
    t = d.get("tracking") or {}
    out = []
    for key, label in (("before", "open before the cell"), ("after", "open after the cell"),
                       ("closed_as_failed", "closed as FAILED by the guard")):
        runs = t.get(key)
        if runs is not None:
            flat = [f"{sys}:{rid}" for sys, ids in runs.items() for rid in ids]
            out.append(f"<p>{escape(label)}: {escape(', '.join(flat) or 'none')}</p>")
    err = d.get("error")
    if err:
        out.append(f"<p><b>Error:</b> {escape(err['type'])}{' (out of memory)' if err.get('oom') else ''}</p>")
        for tip in err.get("advice") or []:
            out.append(f"<p>• {escape(tip)}</p>")
        cl = d.get("cleanup") or {}
        if "freed" in cl:
            out.append(f"<p>Freed {escape(_fmt(cl['freed']))} held by the failed frames "
                       f"({cl['frames_cleared']} frames cleared; the namespace was not touched).</p>")
    if d.get("report_path"):
        out.append(f"<p>Report written to <code>{escape(d['report_path'])}</code></p>")
    return "".join(out) or "<p>No tracking runs seen.</p>"


SECTIONS = (checks_html, memory_html, repro_html, tracking_html)


def render_html(d: dict[str, Any]) -> str:
    color = "#c0392b" if d["status"] != "ok" or d["counts"]["error"] else "#1e8449"
    body = "".join(f"<h4 style='margin:8px 0 4px'>{name}</h4>{fn(d)}" for name, fn in zip(TABS, SECTIONS))
    return (f'<div class="trainguard-run"><div style="font-weight:bold;color:{color}">{escape(headline(d))}</div>'
            f"{body}</div>")


def build_widget(d: dict[str, Any]) -> Any:
    import ipywidgets as w

    head = w.HTML(f"<b>{escape(headline(d))}</b>")
    layout, style = head.layout, head.style  # shared: a saved widget state holds one of each, not one per view
    tab = w.Tab(children=[w.HTML(fn(d), layout=layout, style=style) for fn in SECTIONS], layout=layout)
    for i, name in enumerate(TABS):
        tab.set_title(i, name)
    return w.VBox([head, tab], layout=layout)


SAVED_POINTS = 40  # memory samples kept in the saved JSON (the full run stays in _trainguard_last and the report)


def saved_payload(d: dict[str, Any]) -> dict[str, Any]:
    """The run JSON as the notebook saves it: every finding and number, the memory timeline thinned to
    `SAVED_POINTS` samples, step markers as a count (`markers_total`), the five largest objects."""
    mem = d.get("memory")
    if not mem:
        return d
    small = dict(mem, timeline=thin(mem.get("timeline") or [], SAVED_POINTS), markers=[],
                 markers_total=mem.get("markers_total", len(mem.get("markers") or [])),
                 largest_objects=(mem.get("largest_objects") or [])[:5])
    return dict(d, memory=small)


def show_run(run: Any, shell: Any = None) -> None:
    """Publish a `GuardRun` as widget + text + compact HTML (its timeline SVG thinned) + the run JSON under
    RUN_MIME, small enough to save: a guarded cell adds a few KB to the notebook file."""
    d = run.to_dict()
    publish(render_text(d), render_html(d), saved_payload(d), RUN_MIME, lambda: build_widget(d), shell=shell)
