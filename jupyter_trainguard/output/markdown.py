"""Markdown output: one table per notebook (location | rule | issue | impact | fix)."""

from __future__ import annotations

from ..findings import Report


def md_escape(text: str) -> str:
    """Escape text for a Markdown table cell; HTML is neutralised so it renders as text."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for ch in ("\\", "|", "`", "*", "_", "[", "]"):
        text = text.replace(ch, "\\" + ch)
    return text.replace("\r", " ").replace("\n", "<br>")


def render_markdown(reports: list[Report], **_: object) -> str:
    out = ["# trainguard scan", ""]
    for rep in reports:
        c = rep.counts()
        out.append(f"## {md_escape(rep.path)}")
        out.append("")
        out.append(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info; "
                   f"notebook kind: {rep.notebook_kind}")
        out.append("")
        if rep.findings:
            out.append("| location | rule | issue | impact on metric honesty | fix |")
            out.append("|---|---|---|---|---|")
            for f in rep.sorted_findings():
                loc = f.location
                where = loc.cell_text or "notebook"
                if loc.line:
                    where += f", line {loc.line}"
                out.append(f"| {md_escape(where)} | {f.rule_id} ({f.severity.value}) | {md_escape(f.message)} | "
                           f"{md_escape(f.impact)} | {md_escape(f.fix)} |")
            out.append("")
        if rep.suppressed:
            out.append("Suppressed: " + ", ".join(f"{s.finding.rule_id} ({md_escape(s.reason)})"
                                                   for s in rep.suppressed))
            out.append("")
    return "\n".join(out)
