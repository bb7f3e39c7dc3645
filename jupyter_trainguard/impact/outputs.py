"""Metric values printed or displayed by an executed notebook, and how they changed between two runs."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Any

METRIC_WORDS = re.compile(
    r"acc|accuracy|\bf1|auc|roc|\br2\b|r²|rmse|\bmse\b|\bmae\b|score|loss|precision|recall|error|mcc|log.?loss",
    re.IGNORECASE,
)
PAIR = re.compile(
    r"(?P<label>[A-Za-z][\w ()\-/²@.]*?)\s*(?:[:=]|\bis\b)\s*(?P<value>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)"
    r"(?P<pct>%?)"
)
LOWER_WORDS = re.compile(r"rmse|\bmse\b|\bmae\b|loss|error", re.IGNORECASE)


@dataclass
class Metric:
    cell: int  # 0-based index among the notebook's cells
    label: str
    value: float
    occurrence: int = 0  # k-th time this label is reported in the notebook

    @property
    def key(self) -> tuple[str, int]:
        return self.label.lower(), self.occurrence


def _last_expression(source: str) -> str:
    lines = [ln for ln in source.strip().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return lines[-1].strip()[:60] if lines else "value"


def _from_text(text: str) -> list[tuple[str, float]]:
    out = []
    for line in text.splitlines():
        for m in PAIR.finditer(line):
            label = m.group("label").strip(" .")
            if not METRIC_WORDS.search(label):
                continue
            value = float(m.group("value")) / (100.0 if m.group("pct") else 1.0)
            out.append((label, value))
    return out


def _number(text: str) -> float | None:
    try:
        return float(text.strip().removeprefix("np.float64(").removesuffix(")"))
    except ValueError:
        return None


def metrics_of(nb: Any) -> list[Metric]:
    """Metrics in the outputs: `label: value` / `label = value` lines of stdout, results and displayed text, and
    bare numbers a cell displays (labelled by the cell's last expression when it names a metric)."""
    found: list[Metric] = []
    seen: dict[str, int] = {}

    def add(cell: int, label: str, value: float) -> None:
        k = label.lower()
        found.append(Metric(cell, label, value, seen.get(k, 0)))
        seen[k] = seen.get(k, 0) + 1

    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                for label, value in _from_text(out.get("text", "")):
                    add(i, label, value)
            elif out.get("output_type") in ("execute_result", "display_data"):
                text = (out.get("data") or {}).get("text/plain", "")
                text = "".join(text) if isinstance(text, list) else text
                number = _number(text)
                expr = _last_expression(cell.get("source", ""))
                if number is not None and METRIC_WORDS.search(expr):
                    add(i, expr, number)
                else:
                    for label, value in _from_text(text):
                        add(i, label, value)
    return found


def errors_of(nb: Any) -> list[tuple[int, str]]:
    """(cell index, exception name) for every cell that raised."""
    return [
        (i, out.get("ename", "Error"))
        for i, cell in enumerate(nb.cells)
        if cell.get("cell_type") == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


def change_words(label: str, before: float, after: float) -> str:
    d = after - before
    if d == 0:
        return "unchanged"
    sign = "−" if d < 0 else "+"
    if 0 <= before <= 1 and 0 <= after <= 1 and not LOWER_WORDS.search(label):
        pts = abs(d) * 100
        return f"{sign}{pts:.1f} points" if pts >= 0.1 else f"{sign}{pts:.2g} points"
    if not before:
        return f"{sign}{abs(d):.4g}"
    from .metric import relative

    return relative(d, before)


def compare(before: list[list[Metric]], after: list[list[Metric]], tol: float = 1e-12) -> list[dict[str, Any]]:
    """Per metric (paired by label and occurrence): values of each run before/after, the change and a verdict.

    With several runs per side, a change within the spread between runs is "no measurable effect"."""
    rows = []
    first_b = {m.key: m for m in before[0]} if before else {}
    first_a = {m.key: m for m in after[0]} if after else {}
    for key, mb in first_b.items():
        ma = first_a.get(key)
        if ma is None:
            continue
        vb = [r[key].value for r in ({m.key: m for m in run} for run in before) if key in r]
        va = [r[key].value for r in ({m.key: m for m in run} for run in after) if key in r]
        b, a = statistics.fmean(vb), statistics.fmean(va)
        spread = max(max(vb) - min(vb), max(va) - min(va)) if len(vb) > 1 and len(va) > 1 else None
        if abs(a - b) <= tol:
            verdict = "unchanged"
        elif spread is not None and abs(a - b) <= spread:
            verdict = "no measurable effect"
        else:
            verdict = "changed"
        rows.append(
            {
                "label": mb.label,
                "cell_before": mb.cell,
                "cell_after": ma.cell,
                "before": vb,
                "after": va,
                "change": change_words(mb.label, b, a),
                "spread": spread,
                "verdict": verdict,
            }
        )
    return rows
