"""Preprocessing leakage: evaluation rows whose features carry statistics learned from rows that include them."""

from __future__ import annotations

import ast

from ..rows import DUP, covered, overlap, separating_step, stable_overlap
from ..state import Record
from ..values import Eval, Fit, Site
from .common import within_training_split
from .watched import MONITORED, eval_set_evals
from .wording import Leak, by_place, code, path_text, selection_site, sliced_bounds_count, step_text

LEARNERS = ("transformer", "statistic")
SEPARATING = frozenset({"split", "slice", "mask", "folds"})
KEPT_SIDES = frozenset({"train", "lo", "sub", "all"})  # the sides of a selection that keep rows, not hold them out
def held_out(rec: Record, ev: Eval) -> frozenset:
    """The evaluated rows the model did not train on (all of them for cross-validation's held-out folds). An
    oversampler's output holds every row it was given (`fit_resample` adds rows, it drops none): a model trained on
    it trained on them."""
    rows = ev.data.rows
    if ev.cv:
        return rows
    if ev.fit is None:
        return frozenset()
    trained = frozenset(_before_oversampling(rec, t) for t in ev.fit.rows)
    return frozenset(t for t in rows if not covered(frozenset({t}), trained))


def _trained_and_watched(ev: Eval, held: frozenset) -> bool:
    """Scored on the rows a Keras fit trained on together with the validation part it carved from them
    (`evaluate(X_train)` after `fit(X_train, validation_split=0.2)`): a training-set score (LEAK003), not a score
    of held-out rows."""
    trained = ev.fit.rows if ev.fit is not None and not ev.cv else frozenset()
    return bool(trained) and all(len(t) > 1 and isinstance(t[-1][0], tuple) and len(t[-1][0]) > 1 and
                                 str(t[-1][0][1]).startswith("validation_split=") and t[:-1] in held
                                 for t in trained)


def _before_oversampling(rec: Record, tok: tuple) -> tuple:
    """The token without its trailing oversampling steps (the rows they were made from, all kept)."""
    while len(tok) > 1 and tok[-1][1] == DUP:
        sel = rec.selections.get(tok[-1][0])
        node = sel.site.node if sel is not None and sel.site is not None else None
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr in ("fit_resample", "fit_sample")):
            break
        tok = tok[:-1]
    return tok


def trained_with(ev: Eval, f: Fit) -> bool:
    """The evaluated model learned from this transform's output (the same fit, or a fit of the same object)."""
    if ev.cv or ev.fit is None:
        return True
    if f in ev.fit.stats:
        return True
    return f.obj is not None and any(g.obj is f.obj for g in ev.fit.stats)


def _learned(f: Fit) -> bool:
    """A fit whose statistics come from the rows' values (not a category list that only renames values)."""
    return f.kind in LEARNERS and not getattr(f, "vocab", False)


def _split_of(rec: Record, pair: tuple, before: Site | None = None, trained: frozenset = frozenset()) -> Site | None:
    """The selection that separated the evaluated rows from the rows the fit learned from (a split, slice, mask or
    fold; a resampling on the way copies rows and separates nothing): the one whose other side the model trained
    on (`trained`) first, then a split before a filter's other side (`df[df.n >= 5]` drops rows, holds none out)."""
    whole, part = pair
    if separating_step(whole, part) is None:
        return None
    steps = [(rec.selections.get(key), side) for key, side in part[len(whole):]]
    steps = [(sel, side) for sel, side in steps if sel is not None and sel.kind in SEPARATING]
    sides = {step for tok in trained for step in tok[1:]}
    other = [sel for sel, side in steps if any(k == sel.key and s != side for k, s in sides)]  # it trained there
    held = sorted((sel for sel, side in steps if side not in KEPT_SIDES), key=lambda sel: sel.kind == "mask")
    return selection_site((other + held + [sel for sel, _side in steps] + [None])[0], before)  # (`X[:len(y)]` aligns)


def preprocessing_leaks(rec: Record, pending: bool = True) -> list[Leak]:
    """Every preprocessing leak of the record; `pending`: also a held-out part that carries its own statistics
    before anything scores it (the code so far of a live session: in a finished notebook nothing is inflated)."""
    out: list[Leak] = []
    seen: set[int] = set()
    # a transform that reaches both a test score and a cross-validation is shown with the test score
    for ev in sorted(list(rec.evals) + eval_set_evals(rec), key=lambda ev: ev.cv):
        held = held_out(rec, ev)
        if not held or ev.method == "validation_split" or _trained_and_watched(ev, held):
            continue  # a score on the training rows themselves is LEAK007's; their own statistics are no leak, nor
            # a Keras validation split's: statistics of the training rows (its last fifth among them) are the
            # field's own practice, and its loss steers training or is logged beside it
        bounds = sliced_bounds_count(ev.data)
        for f in by_place(ev.data.all_stats):
            if not _learned(f) or id(f) in seen or f.ylabel_only:
                continue
            if overlap(f.rows, held, bounds) is None:
                continue
            pair = stable_overlap(f.rows, held, bounds)
            seen.add(id(f))
            split = _split_of(rec, pair, ev.site, ev.fit.rows if ev.fit is not None else frozenset())
            what = f"{code(ev.site)} (cross-validation)" if ev.cv else f"{code(ev.site)}"
            if ev.method in MONITORED:
                what = f"the `{ev.method}` of {code(ev.site)}"
            held_name = f" as `{ev.data.name}`" if ev.data.name else ""
            if (ev.cv or in_folds(rec, ev.data.rows)) and within_training_split(rec, f.rows) and \
                    within_training_split(rec, ev.data.rows):
                out.append(_validation_leak(rec, f, ev))
                continue
            if ev.cv and within_training_split(rec, f.rows) and _training_split(rec, f) is not None:
                split = _training_split(rec, f)
                how = (f"{code(f.site)} learns its statistics in {f.site.where()} from the training part of "
                       f"{code(split)} in {split.where()}, and {code(ev.site)} (cross-validation) in "
                       f"{ev.site.where()} splits rows beyond that part into folds: its held-out folds include the "
                       f"rows it learned from, so")
            elif ev.cv:
                how = (f"{code(f.site)} learns its statistics in {f.site.where()} from the very rows that "
                       f"{code(ev.site)} (cross-validation) in {ev.site.where()} splits into folds: each held-out fold "
                       f"is scored with statistics learned from its own rows, so")
            elif split is not None:
                how = (f"{code(f.site)} learns its statistics in {f.site.where()} from rows that the split "
                       f"{code(split)} in {split.where()} later holds out{held_name}, and {what} in "
                       f"{ev.site.where()} evaluates on them")
            else:
                how = (f"{code(f.site)} learns its statistics in {f.site.where()} from the very rows that "
                       f"{what} in {ev.site.where()} evaluates on")
            typed = _typed_before(rec.typed.get(id(f), []), split or ev.site)
            if typed is not None:
                how += f" (the columns written out in {typed.where()} follow what it ranked)"
            trail = path_text([("", f.site), ("split", split), ("", ev.site)])
            out.append(Leak(
                "preprocessing", f.site,
                f"{how}{' held-out' if ev.cv else ': test-set'} information reaches the features ({trail}).",
                evidence={"fit": step_text(f.site), "split": step_text(split), "evaluation": step_text(ev.site),
                          "transformer": f.cls.rsplit(".", 1)[-1], "fitted_on": f.data_name,
                          "same_transform_in_training": trained_with(ev, f), "cross_validation": ev.cv,
                          "kind": f.kind, "scored": ev.scored,
                          "fit_cell": step_text(f.site).get("cell"), "split_cell": step_text(split).get("cell"),
                          "eval_cell": step_text(ev.site).get("cell"), "held_out": ev.data.name},
            ))
    if pending:
        out += pending_leaks(rec, seen)
    return out


def _training_split(rec: Record, f: Fit) -> Site | None:
    """The split whose training part a fit learned from (its rows all lie within one), else None (a training
    file read apart from the labelled test file)."""
    tok = min(f.rows, key=repr)
    key = next((key for key, part in tok[1:] if part == "train" and
                getattr(rec.selections.get(key), "kind", None) == "split"), None)
    return selection_site(rec.selections[key]) if key is not None else None


def in_folds(rec: Record, rows: frozenset) -> bool:
    """Rows of a held-out fold of a hand-written cross-validation (`X[va]` of `kf.split(X)`, `x[i * n:(i + 1) * n]`
    in a loop over folds): every token went through a fold selection."""
    return bool(rows) and all(any(getattr(rec.selections.get(key), "kind", None) == "folds" for key, _p in tok[1:])
                              for tok in rows)


def _validation_leak(rec: Record, f: Fit, ev: Eval) -> Leak:
    """A transform fitted on the whole training split, then cross-validated (or searched) on it: each held-out
    fold carries statistics of its own rows, so the cross-validated score that chooses is optimistic; the test
    part the split kept aside never saw them."""
    split = _training_split(rec, f)
    trail = path_text([("split", split), ("", f.site), ("", ev.site)])
    return Leak(
        "validation", f.site,
        f"{code(f.site)} learns its statistics in {f.site.where()} from the whole training "
        f"{'split' if split is not None else 'data'} that "
        f"{code(ev.site)} in {ev.site.where()} then cross-validates: each held-out fold is scored with statistics "
        f"learned from its own rows, so the cross-validated score is optimistic (the test part stays untouched) "
        f"({trail}).",
        evidence={"fit": step_text(f.site), "evaluation": step_text(ev.site),
                  "split": step_text(split) if split else None,
                  "transformer": f.cls.rsplit(".", 1)[-1], "fitted_on": f.data_name, "kind": f.kind,
                  "cross_validation": True, "fit_cell": step_text(f.site).get("cell"),
                  "eval_cell": step_text(ev.site).get("cell")},
        severity="warning")


def pending_leaks(rec: Record, seen: set[int]) -> list[Leak]:
    """Before anything is evaluated (the code so far, as `%%guarded_train` sees it): a split's held-out part
    already carries statistics learned from its own rows, and a model was trained with the same transform."""
    out: list[Leak] = []
    models = [fit for fit in rec.fits if fit.kind == "model"]
    trained = {id(g) for fit in models for g in fit.stats}
    for part in rec.held_out_parts:
        for f in by_place(part.all_stats):
            if not _learned(f) or id(f) in seen:
                continue
            if models and id(f) not in trained:
                continue  # the models so far were trained without this transform
            bounds = sliced_bounds_count(part)
            if overlap(f.rows, part.rows, bounds) is None:
                continue
            pair = stable_overlap(f.rows, part.rows, bounds)
            seen.add(id(f))
            split = _split_of(rec, pair)
            trail = path_text([("", f.site), ("split", split)])
            out.append(Leak(
                "preprocessing", f.site,
                f"{code(f.site)} learns its statistics in {f.site.where()} from rows that the split "
                f"{code(split)} in {split.where() if split else 'a later cell'} holds out"
                f"{f' as `{part.name}`' if part.name else ''}"
                f"{', and a model is trained with that transform' if models else ''}"
                f": any score on the held-out part will be inflated ({trail}).",
                evidence={"fit": step_text(f.site), "split": step_text(split), "evaluation": {},
                          "transformer": f.cls.rsplit(".", 1)[-1], "fitted_on": f.data_name,
                          "fit_cell": step_text(f.site).get("cell"), "split_cell": step_text(split).get("cell"),
                          "held_out": part.name, "kind": f.kind, "pending": True},
            ))
    return out


def synthesis_leaks(overlaps: list[Leak]) -> list[Leak]:
    """An oversampler run before the split learns from rows the split then holds out: one that interpolates new
    rows (SMOTE, ADASYN) learns the neighbours it interpolates between, so training rows are built from the
    evaluation rows' features; one that copies rows to balance classes (`RandomOverSampler`, one class upsampled
    by `resample`) sizes its copies by class counts that include the held-out rows' labels. Besides the copies it
    puts on both sides (the overlap finding), statistics of the held-out rows reach the training data."""
    out = []
    for lk in overlaps:
        if lk.kind != "resampled" or not (lk.evidence.get("synthetic") or lk.evidence.get("balancing")):
            continue
        ev = lk.evidence
        split, used = ev.get("split") or {}, ev.get("evaluation") or ev.get("fit") or {}
        verb = "evaluates on" if ev.get("evaluation") else "will be scored on"
        held = _step(split, "a later split or cross-validation")
        if ev.get("synthetic"):
            what = (f"{code(lk.at)} learns in {lk.at.where()} the neighbours it interpolates new rows between, from "
                    f"rows that {held} holds out: the training rows it makes are built from the features of the rows "
                    f"{_step(used, 'the model')} {verb}.")
        else:
            what = (f"{code(lk.at)} decides in {lk.at.where()} which rows to copy, and how often, over rows that "
                    f"{held} holds out: their labels set the class balance of the training rows, and "
                    f"{_step(used, 'the model')} {verb} those held-out rows.")
        out.append(Leak("preprocessing", lk.at, what, evidence={**ev, "transformer": "oversampler",
                                                                "kind": "resampler"}))
    return out


def _step(step: dict, default: str) -> str:
    return f"`{step['code']}` (cell {step['cell']})" if step.get("code") else default


def _typed_before(sites: list, until) -> object | None:
    """Of the column lists typed after a ranking was read, the last one written before the split (or the
    evaluation): the one that built the table the split divides."""
    before = [s for s in sites if s.ran_at() <= until.ran_at()]
    return before[-1] if before else (sites[0] if sites else None)
