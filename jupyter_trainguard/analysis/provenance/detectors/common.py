"""What a detector reports: the leak and the path that proves it (fit, split, evaluation; cell and line)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rows import Selection
from ..values import Eval, Fit, Site


@dataclass
class Leak:
    kind: str  # preprocessing | resampled | overlap | train-rows
    at: Site  # where the finding is reported
    message: str
    evidence: dict = field(default_factory=dict)
    severity: str | None = None


def code(site: Site | None, fallback: str = "an expression") -> str:
    return f"`{site.text}`" if site is not None and site.text else fallback


def step_text(site: Site | None) -> dict:
    if site is None:
        return {}
    c = getattr(site.cell, "index", None)
    return {"cell": c + 1 if c is not None else None, "line": site.line, "code": site.text}


def selection_site(sel: Selection | None) -> Site | None:
    return sel.site if sel is not None else None


def path_text(parts: list[tuple[str, Site | None]]) -> str:
    """"`scaler.fit_transform(X)` cell 4 → split cell 5 → `model.score(X_test, …)` cell 8"."""
    out = []
    for label, site in parts:
        if site is None:
            continue
        out.append(f"{label}{code(site) if label == '' else ''} {site.where()}".strip())
    return " → ".join(out)


def eval_site(ev: Eval) -> Site:
    return ev.metric if ev.metric is not None and not ev.site.text else ev.site


def fit_label(f: Fit | None) -> str:
    if f is None:
        return "the model"
    return f"`{f.cls.rsplit('.', 1)[-1]}`" if f.kind != "statistic" else f"the statistic `{f.cls}()`"
