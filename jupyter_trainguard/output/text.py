"""Human-readable text output, coloured on a terminal."""

from __future__ import annotations

from ..findings import Finding, Report

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _paint(text: str, code: str, colour: bool) -> str:
    return f"{code}{text}{_RESET}" if colour else text


def _where(f: Finding) -> str:
    loc = f.location
    parts = [loc.path]
    if loc.cell_text:
        parts.append(loc.cell_text)
    if loc.line is not None:
        parts.append(f"line {loc.line}")
    return ":".join(parts)


def render_text(reports: list[Report], colour: bool = False, verbose: bool = False, show_info: bool = False,
                **_: object) -> str:
    """Findings, one block each; info findings only with `show_info` (or `verbose`), always counted."""
    lines: list[str] = []
    totals = {"error": 0, "warning": 0, "info": 0}
    n_suppressed = 0
    for rep in reports:
        for f in rep.sorted_findings():
            totals[f.severity.value] += 1
            if f.severity.value == "info" and not (show_info or verbose):
                continue
            sev = _paint(f.severity.value, _COLOURS[f.severity.value], colour)
            lines.append(f"{_paint(_where(f), _BOLD, colour)}: {sev} {f.rule_id} [{f.category}] {f.message}")
            if f.impact:
                lines.append(f"    impact: {f.impact}")
            if f.fix:
                lines.append(f"    fix:    {f.fix}")
        n_suppressed += len(rep.suppressed)
        if verbose:
            for s in rep.suppressed:
                lines.append(_paint(f"{_where(s.finding)}: suppressed {s.finding.rule_id} by {s.reason}", _DIM, colour))
            for rid, why in sorted(rep.skipped_rules.items()):
                lines.append(_paint(f"{rep.path}: skipped {rid}: {why}", _DIM, colour))
    n_files = len(reports)
    summary = (f"{n_files} notebook{'s' if n_files != 1 else ''} scanned: {totals['error']} error(s), "
               f"{totals['warning']} warning(s), {totals['info']} info")
    if totals["info"] and not (show_info or verbose):
        summary += " (not shown; --show-info lists them)"
    if n_suppressed:
        summary += f"; {n_suppressed} suppressed inline"
    skipped = {rid for rep in reports for rid in rep.skipped_rules}
    if skipped:
        summary += f"; {len(skipped)} rule(s) skipped (see --verbose)"
    if lines:
        lines.append("")
    lines.append(_paint(summary, _BOLD, colour))
    return "\n".join(lines)
