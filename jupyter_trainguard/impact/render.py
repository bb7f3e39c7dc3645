"""Impact records as text and HTML lines, for the run panel, the review report and the CLI."""

from __future__ import annotations

from typing import Any


def impact_of(finding: Any) -> dict[str, Any] | None:
    """The impact record of a finding (a Finding or its dict form), or None."""
    ev = finding.get("evidence") if isinstance(finding, dict) else getattr(finding, "evidence", None)
    rec = (ev or {}).get("impact")
    return rec if isinstance(rec, dict) and rec.get("summary") else None


def impact_text(rec: dict[str, Any], details: bool = True) -> str:
    """One line: the summary, then (with details) the refit, rows and time used."""
    text = f"measured impact: {rec['summary']}" if rec.get("status") == "measured" else rec["summary"]
    if details and rec.get("status") == "measured":
        rows = ", ".join(f"{k} {v}" for k, v in (rec.get("rows") or {}).items())
        text += (
            f" [{rec.get('strategy', '')}; rows: {rows}; objects: {', '.join(rec.get('objects') or [])}; "
            f"{rec.get('seconds', 0):.2f} s of a {rec.get('budget_s', 0):.1f} s budget]"
        )
    return text


def impact_html(rec: dict[str, Any]) -> str:
    from ..display.bundle import escape

    colour = {"inflated": "#c0392b", "deflated": "#d68910", "no measurable effect": "#1e8449"}.get(
        rec.get("verdict", ""), "#666"
    )
    head = (
        f"<b style='color:{colour}'>{escape(rec['summary'])}</b>"
        if rec.get("status") == "measured"
        else f"<span style='color:#666'>{escape(rec['summary'])}</span>"
    )
    if rec.get("status") != "measured":
        return head
    rows = ", ".join(f"{k} {v}" for k, v in (rec.get("rows") or {}).items())
    return (
        f"{head}<br><span style='color:#666'>{escape(rec.get('strategy', ''))}; rows: {escape(rows)}; "
        f"{rec.get('seconds', 0):.2f} s (budget {rec.get('budget_s', 0):.1f} s)</span>"
    )
