"""HTML for an estimate (the text form is `.summary()`); every user-controlled string is escaped."""

from __future__ import annotations

from ..display.bundle import escape
from .result import PART_LABELS, EstimateUnavailable, MemoryEstimate, format_bytes

_STYLE = "border-collapse:collapse;font-family:monospace;font-size:12px"
_CELL = "padding:2px 10px;border-bottom:1px solid #ddd"


def render_html(result: MemoryEstimate | EstimateUnavailable) -> str:
    if isinstance(result, EstimateUnavailable):
        notes = "".join(f"<li>{escape(n)}</li>" for n in result.notes)
        return (f'<div class="trainguard-estimate trainguard-estimate-unavailable"><b>trainguard estimate:</b> '
                f"{escape(result.summary())}{f'<ul>{notes}</ul>' if notes else ''}</div>")
    rows = "".join(
        f'<tr><td style="{_CELL}">{escape(PART_LABELS.get(k, k))}</td>'
        f'<td style="{_CELL};text-align:right">{escape(format_bytes(v))}</td>'
        f'<td style="{_CELL};text-align:right;color:#777">{v:,} B</td></tr>'
        for k, v in result.parts.items())
    rows += (f'<tr><td style="{_CELL}"><b>Estimated peak</b></td><td style="{_CELL};text-align:right">'
             f"<b>{escape(format_bytes(result.total_bytes))}</b></td>"
             f'<td style="{_CELL};text-align:right;color:#777">{result.total_bytes:,} B</td></tr>')
    if result.budget_bytes is not None:
        colour, verdict = ("#1a7f37", "fits") if result.fits else ("#cf222e", "exceeds the budget")
        rows += (f'<tr><td style="{_CELL}">Budget</td><td style="{_CELL};text-align:right">'
                 f"{escape(format_bytes(result.budget_bytes))}</td>"
                 f'<td style="{_CELL};color:{colour}"><b>{verdict}</b></td></tr>')
    phase = f" (peak during {escape(result.peak_phase)})" if result.peak_phase else ""
    notes = "".join(f"<li>{escape(n)}</li>" for n in result.notes)
    return (f'<div class="trainguard-estimate"><b>trainguard: estimated peak memory of one training step on '
            f"{escape(result.device)}{phase}</b>"
            f'<table style="{_STYLE}">{rows}</table>'
            f'<ul style="font-size:11px;color:#555">{notes}</ul>'
            f'<div style="font-size:11px;color:#777">Estimated in {result.elapsed_s:.2f} s on fake tensors; '
            "no memory was allocated.</div></div>")
