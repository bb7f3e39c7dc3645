"""What a detector reports: the leak and the path that proves it (fit, split, evaluation; cell and line)."""

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


def selection_site(sel: Selection | None) -> Site | None:
    return sel.site if sel is not None else None


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


TRAIN_SIDE = frozenset({"train", "lo", "mid"})
HELD_SIDE = frozenset({"test", "hi", "rest"})


def final_test(rec, rows: frozenset) -> bool:
    """The rows are a final test set: every token was held out by a split or a positional cut (the test part,
    the tail, the complement of a sample) and never went through a training-side part (a part carved out of
    training rows, a middle part or a validation part is a validation set). Folds belong to cross-validation,
    where comparing candidates is the point."""
    if not rows:
        return False
    for tok in rows:
        held = False
        for key, part in tok[1:]:
            sel = rec.selections.get(key)
            kind = sel.kind if sel is not None else None
            if kind == "folds":
                return False
            if kind == "split" or kind in ("slice", "mask") and part in HELD_SIDE | TRAIN_SIDE:
                if part in TRAIN_SIDE or kind == "split" and part != "test":
                    return False
                held = held or part in HELD_SIDE
        if not held:
            return False
    return True
