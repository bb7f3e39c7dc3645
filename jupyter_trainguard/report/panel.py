"""The ipywidgets panel: a tab per part, a sortable findings list, and the code of the selected finding's cell."""

from __future__ import annotations

from typing import Any

from ..display.bundle import escape, inline_code
from ..findings import Finding
from .model import AuditReport
from .render import _part_html, checked_html, findings_table_html, provenance_html, where

SORTS = ("priority", "severity", "location", "rule")
TAB_TITLES = {"reproducibility": "1 Reproducibility", "split": "2 Split & leakage", "temporal": "3 Temporal",
              "checkpointing": "4 Checkpointing", "tracking": "5 Tracking", "findings": "6 Findings",
              "next": "7 Next action"}


def sort_findings(findings: list[Finding], by: str) -> list[Finding]:
    """`findings` arrive in priority order; the other orders are stable re-sorts of it."""
    if by == "severity":
        return sorted(findings, key=lambda f: -f.severity.rank)
    if by == "location":
        return sorted(findings, key=lambda f: (f.location.path, f.location.cell if f.location.cell is not None
                                               else -1, f.location.line or 0))
    if by == "rule":
        return sorted(findings, key=lambda f: f.rule_id)
    return list(findings)


def finding_label(f: Finding) -> str:
    return f"[{f.severity.value[0].upper()}] {f.rule_id} · {where(f)} · {f.message}"[:160]


def cell_code_html(audit: AuditReport, f: Finding) -> str:
    """The finding's cell, with its line marked; escaped."""
    loc = f.location
    head = (f"<div><b>{escape(f.rule_id)}</b> ({escape(f.severity.value)}, {escape(f.category)}) at "
            f"{escape(where(f))}</div><div>{inline_code(f.message)}</div>"
            f"<div><i>Impact:</i> {escape(f.impact)}</div><div><i>Fix:</i> {escape(f.fix)}</div>")
    code = audit.cells.get(f"{loc.path}#{loc.cell}") if loc.cell is not None else None
    if code is None:
        return head + "<div><i>No cell code for this finding.</i></div>"
    lines = []
    for n, text in enumerate(code.split("\n"), start=1):
        style = " style='background:#fff3cd'" if loc.line == n else ""
        lines.append(f"<span{style}>{n:>3}  {escape(text)}</span>")
    return head + "<pre style='margin-top:4px'>" + "\n".join(lines) + "</pre>"


class AuditPanel:
    """Builds the widget tree; kept as an object so tests can drive the sort and the selection."""

    def __init__(self, audit: AuditReport) -> None:
        import ipywidgets as w

        self.audit = audit
        self.sort = w.Dropdown(options=list(SORTS), value="priority", description="Sort by")
        self.list = w.Select(options=[], rows=min(10, max(3, len(audit.findings))),
                             layout=w.Layout(width="100%"))
        self.code = w.HTML()
        self.sort.observe(lambda _: self._fill(), names="value")
        self.list.observe(lambda ch: self._show(ch["new"]), names="value")
        self._fill()
        tabs = []
        titles = []
        for p in audit.parts:
            if p.key == "findings":
                box: Any = w.VBox([self.sort, self.list, self.code]) if audit.findings else \
                    w.HTML(findings_table_html([]))
            elif p.key == "next":
                box = w.HTML(f"<blockquote>{escape(p.verdict)}</blockquote>")
            else:
                box = w.HTML(_part_html(p))
            tabs.append(box)
            titles.append(TAB_TITLES.get(p.key, p.title))
        tabs.append(w.HTML(checked_html(audit)))
        titles.append("Checked")
        tabs.append(w.HTML(provenance_html(audit)))
        titles.append("Provenance")
        self.tabs = w.Tab(children=tabs)
        for i, t in enumerate(titles):
            self.tabs.set_title(i, t)
        c = audit.counts()
        header = w.HTML(f"<b>Training pipeline review: {escape(audit.subject)}</b> — {c['error']} error(s), "
                        f"{c['warning']} warning(s), {c['info']} info. <i>Next:</i> "
                        f"{escape(audit.next_action.get('text', ''))}")
        self.widget = w.VBox([header, self.tabs])

    def _fill(self) -> None:
        self._order = sort_findings(self.audit.findings, self.sort.value)
        self.list.options = [(finding_label(f), i) for i, f in enumerate(self._order)]
        if self._order:
            self.list.value = 0
            self._show(0)

    def _show(self, index: int | None) -> None:
        if index is None or not (0 <= index < len(self._order)):
            self.code.value = ""
            return
        self.code.value = cell_code_html(self.audit, self._order[index])


def make_panel(audit: AuditReport) -> Any:
    return AuditPanel(audit).widget
