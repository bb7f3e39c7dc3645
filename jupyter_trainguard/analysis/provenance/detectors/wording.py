"""What a detector reports: the leak and the path that proves it (fit, split, evaluation; cell and line), and the
data values an argument holds."""

from __future__ import annotations

from ....findings import FACTORY, Record, factory
from ..rows import Selection
from ..values import Site, Val


class Leak(Record):
    """A leak a detector found: its kind, where it is reported, the message and the evidence."""

    kind: str  # preprocessing | resampled | overlap | train-rows
    at: Site  # where the finding is reported
    message: str
    evidence: dict = factory(dict)
    severity: str | None = None

    def __init__(self, kind: str, at: Site, message: str, evidence: dict = FACTORY,
                 severity: str | None = None) -> None:
        self.kind = kind
        self.at = at
        self.message = message
        self.evidence = {} if evidence is FACTORY else evidence
        self.severity = severity


def by_place(fits) -> list:
    """Fits in the order of their place in the notebook (a set's order varies from run to run)."""
    return sorted(fits, key=lambda f: (f.site.ran_at(), getattr(f.site.node, "col_offset", 0) or 0, f.cls))


def code(site: Site | None, fallback: str = "an expression") -> str:
    return f"`{site.text}`" if site is not None and site.text else fallback


def step_text(site: Site | None) -> dict:
    if site is None:
        return {}
    c = getattr(site.cell, "index", None)
    out = {"cell": c + 1 if c is not None else None, "line": site.line, "code": site.text}
    if site.via is not None:
        out["called_from"] = step_text(site.via)
    return out


def sliced_bounds_count(data: Val) -> bool:
    """Whether constant slice bounds may prove that these rows overlap others: not once they are read through
    sliding windows (`X_test` built from `test[i - 60:i]`), whose first rows are only the windows' context."""
    return not any(t[0] == "window" for t in data.time)


def selection_site(sel: Selection | None, before: Site | None = None) -> Site | None:
    """Where a selection was made: the last call making it that ran before `before` (a repeated seeded split is
    named where it ran last before the evaluation), else the first."""
    return (sel.site_before(before) if before is not None else sel.site) if sel is not None else None


def path_text(parts: list[tuple[str, Site | None]]) -> str:
    """"`scaler.fit_transform(X)` cell 4 → split cell 5 → `model.score(X_test, …)` cell 8"."""
    out = []
    present = [(label, site) for label, site in parts if site is not None]
    present.sort(key=lambda p: p[1].ran_at())  # in the order they ran
    for label, site in present:
        out.append(f"{label}{code(site) if label == '' else ''} {site.where()}".strip())
    return " → ".join(out)




def first_data(v: Val | None, depth: int = 0) -> Val | None:
    """The first data value with rows in an argument: a frame, or the first of a pair or a list of pairs."""
    if v is None or depth > 3:
        return None
    if v.kind == "seq":
        for item in v.items or ():
            found = first_data(item, depth + 1)
            if found is not None:
                return found
        return None
    return v if v.is_data and v.rows else None


def data_leaves(v: Val | None, depth: int = 0) -> list[Val]:
    """Every data value with rows in an argument (each set of `eval_set=[(X_tr, y_tr), (X_te, y_te)]`)."""
    if v is None or depth > 3:
        return []
    if v.kind == "seq":
        return [d for item in v.items or () for d in data_leaves(item, depth + 1)]
    return [v] if v.is_data and v.rows else []
