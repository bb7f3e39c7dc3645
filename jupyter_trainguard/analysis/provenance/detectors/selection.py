"""Test-set selection: the final held-out rows drive a choice — early stopping or best-checkpoint on them (a fit's
`eval_set`/`validation_data`, a Hugging Face or Lightning trainer), a search fitted on them, their scores compared,
maxed, sorted or fed to a plateau scheduler to pick a model, setting or epoch, or a model rebuilt per setting of a
loop scored on them. Validation data without a callback that selects is not a choice."""

from __future__ import annotations

import ast

from ..rows import covered, key_kind, overlap
from ..state import Record
from .common import chosen_by_loops, final_test, untouched_test_note
from .wording import Leak, code, data_leaves, sliced_bounds_count, step_text


def selection_leaks(rec: Record) -> list[Leak]:
    out: list[Leak] = []
    for obj, v, site, kwarg, early in rec.eval_sets:
        data = next((d for d in data_leaves(v) if final_test(rec, d.rows)), None) if early else None
        if data is None:
            zoo = obj is not None and obj.cls.startswith("lazypredict.")  # a ranking on each fold: cross-validation
            fold = _stopped_on_scored_fold(rec, obj, v, site) if early and not zoo else None
            if fold is not None:
                out.append(fold)
            continue  # (the training pair watched first and the test pair second is still a choice by the test)
        shown = data.name or (v.name if v is not None else None) or (  # (batches a generator yields: the generator)
            v.site.text if v is not None and v.site is not None else None)  # (`DataLoader(test_ds)` given inline)
        name = f" `{shown}`" if shown else ""
        how = ("with early stopping or a best-model checkpoint", "when training stops or which weights are kept")
        if obj is not None and obj.role == "tuner":
            how = ("to a ranking of many models", "which model is kept") if obj.cls.startswith("lazypredict.") \
                else ("to a hyperparameter search", "which settings are kept")
        out.append(Leak("selection", site,
                        f"The held-out rows{name} are passed as `{kwarg}` {how[0]} in {site.where()}: they decide "
                        f"{how[1]}, so they can no longer give an unbiased score{untouched_test_note(rec, data.rows)}.",
                        evidence={"kwarg": kwarg, "variable": data.name, "fit": step_text(site)}))
    choices = chosen_scores(rec)
    picked = {id(ev) for _site, evs in choices for ev in evs}
    for ev in rebuilt_per_setting(rec):
        if id(ev) in picked:
            continue  # the choice that reads these scores is the finding (it names this evaluation too)
        out.append(Leak("selection", ev.site,
                        f"{code(ev.site)} in {ev.site.where()} scores a model rebuilt for each setting of a loop "
                        f"on the held-out rows `{ev.data.text()}`: the test set is choosing the setting"
                        f"{untouched_test_note(rec, ev.data.rows)}.",
                        evidence={"evaluation": step_text(ev.site), "test": ev.data.name}))
    for fit in rec.fits:
        if fit.obj is not None and fit.obj.role == "search" and fit.rows and final_test(rec, fit.rows):
            out.append(Leak("selection", fit.site,
                            f"{code(fit.site)} in {fit.site.where()} searches hyperparameters on the held-out rows"
                            f"{untouched_test_note(rec, fit.rows)}.",
                            evidence={"search": fit.cls.rsplit(".", 1)[-1], "fit": step_text(fit.site)}))
    out += _searched_over_test_rows(rec)
    out += _chosen_on_scored_fold(rec)
    merged: dict[frozenset, list] = {}  # several choices read the same scores (keep the best, step a scheduler)
    for site, evs in choices:
        merged.setdefault(frozenset(id(ev) for ev in evs), []).append((site, evs))
    for group in merged.values():
        site, evs = group[0]
        ev_site = evs[0].site
        here = ev_site.cell is site.cell and ev_site.line == site.line
        scored = "" if here else f" by {code(ev_site)} in {ev_site.where()}"
        also = "; also " + ", ".join(f"{code(s)} in {s.where()}" for s, _ in group[1:4]) if len(group) > 1 else ""
        what = "a model, setting or split (each pass splits the rows anew: the best may be a lucky draw of test " \
            "rows)" if _split_per_pass(rec, evs[0]) else "a model or setting"
        out.append(Leak("selection", site,
                        f"Scores on the held-out rows `{evs[0].data.text()}`{scored} are used to pick {what} in "
                        f"{site.where()} ({code(site)}{also}){untouched_test_note(rec, evs[0].data.rows)}.",
                        evidence={"choice": step_text(site), "evaluation": step_text(ev_site),
                                  "also": [step_text(s) for s, _ in group[1:]]}))
    return out


def _split_per_pass(rec: Record, ev) -> bool:
    """The scored rows come from a split made anew on each pass of a loop over settings (`random_state=seed`)."""
    return any(getattr(rec.selections.get(key), "kind", None) == "split" and rec.selections[key].loops
               for tok in ev.data.rows for key, _part in tok[1:])


def _searched_over_test_rows(rec: Record) -> list[Leak]:
    """A search cross-validated over rows that include the final test rows, then a model of the estimator it tuned
    scored on those rows: the test rows' folds helped choose its settings (`GridSearchCV(tree).fit(X, y)`, the best
    settings typed into `DecisionTreeClassifier(max_depth=6)` or given as `**gs.best_params_`, scored on a split of
    X)."""
    out = []
    for fit in rec.fits:
        inner = fit.obj.inner if fit.obj is not None and fit.obj.role == "search" else None
        if inner is None or not fit.rows or final_test(rec, fit.rows):
            continue
        ev = next((ev for ev in rec.evals if ev.scored and not ev.cv and ev.obj is not None and ev.obj is not fit.obj
                   and ev.obj.cls == inner.cls and (_set_by_hand(ev.obj) & fit.obj.tunes or _given_best(ev.obj)) and
                   ev.site.ran_at() > fit.site.ran_at() and final_test(rec, ev.data.rows) and
                   covered(ev.data.rows, fit.rows)), None)
        if ev is None:
            continue
        est = inner.cls.rsplit(".", 1)[-1]
        how = "the settings it found" if _given_best(ev.obj) else "settings typed in by hand"
        out.append(Leak("selection", fit.site,
                        f"{code(fit.site)} in {fit.site.where()} searches the settings of `{est}` by cross-validation "
                        f"over rows that include the held-out rows `{ev.data.text()}`, and {code(ev.site)} in "
                        f"{ev.site.where()} then scores a `{est}` with {how} on them: the test rows helped choose "
                        f"those settings{untouched_test_note(rec, ev.data.rows)}.",
                        evidence={"search": fit.cls.rsplit(".", 1)[-1], "fit": step_text(fit.site),
                                  "evaluation": step_text(ev.site)}))
    return out


def _given_best(obj) -> bool:
    """An estimator built with the settings a search found (`SVC(**gs.best_params_)`, Surprise's
    `SVD(**gs.best_params['rmse'])`)."""
    node = obj.site.node if obj.site is not None else None
    return isinstance(node, ast.Call) and any(
        k.arg is None and any(isinstance(n, ast.Attribute) and n.attr in ("best_params_", "best_params")
                              for n in ast.walk(k.value)) for k in node.keywords)


def _set_by_hand(obj) -> set[str]:
    """The settings an estimator's constructor sets by keyword (`DecisionTreeClassifier(max_depth=6)`)."""
    node = obj.site.node if obj.site is not None else None
    return {k.arg for k in node.keywords if k.arg} if isinstance(node, ast.Call) else set()


def _stopped_on_scored_fold(rec: Record, obj, v, site) -> Leak | None:
    """Early stopping (or a best-iteration pick) on a cross-validation loop's held-out fold that the same model then
    scores: each fold's score is read on the rows that chose when training stopped, so the cross-validated score
    is optimistic (a fold of its own for stopping, or a fixed number of rounds, keeps it honest)."""
    for data in data_leaves(v):
        if not all(_ends_in_held_fold(rec, tok) for tok in data.rows):
            continue
        ev = next((ev for ev in rec.evals if ev.scored and ev.obj is obj and ev.fit is not None and
                   ev.fit.site is site and covered(ev.data.rows, data.rows) and covered(data.rows, ev.data.rows)),
                  None)
        if ev is None and (obj is None or any(e.scored and e.obj is obj for e in rec.evals)):
            continue  # the fold models are scored on other rows (a test part): their stopping chose nothing there
        name = f" `{data.name}`" if data.name else ""
        scored = f"then scored by {code(ev.site)} in {ev.site.where()}" if ev is not None else \
            "its best score there, logged while training, is the only score the models get"
        model = f" of `{obj.cls.rsplit('.', 1)[-1]}`" if obj is not None else ""
        return Leak("selection", site,
                    f"The held-out fold{name} is passed as an early-stopping `eval_set`/`validation_data`{model} in "
                    f"{site.where()} and {scored}: each fold is scored on the rows that chose when training stopped, "
                    f"so the cross-validated score is optimistic.",
                    evidence={"fit": step_text(site), "evaluation": step_text(ev.site if ev is not None else site),
                              "variable": data.name, "cross_validation": True},
                    severity="warning")
    return None


def _chosen_on_scored_fold(rec: Record) -> list[Leak]:
    """A hand-written fold loop that keeps, inside each pass, the epoch or setting with the best score on that
    pass's held-out fold (`if f1 > best: torch.save(...)`): the fold is then scored on the rows that made the
    choice, so the cross-validated score is optimistic. Fold models also scored on a final test part: that score
    is honest, and the choice is not reported."""
    out: list[Leak] = []
    seen: set[frozenset] = set()
    for score, site, folds in rec.choices:
        evs = [ev for ev in score.evals if folds & {lid for lid, kind in ev.loops if kind == "folds"} and
               ev.data.rows and all(_ends_in_held_fold(rec, tok) for tok in ev.data.rows)]
        if not evs or len(evs) < len(score.evals) or frozenset(map(id, evs)) in seen:
            continue
        seen.add(frozenset(map(id, evs)))
        objs = {id(ev.obj) for ev in evs if ev.obj is not None}
        if any(e.scored and _on_final_test(rec, e) and (id(e.obj) in objs or folds & {lid for lid, _k in e.loops})
               for e in rec.evals):
            continue
        ev = evs[0]
        split = next((sel.site for tok in sorted(ev.data.rows, key=repr) for key, part in tok[1:]
                      if (sel := rec.selections.get(key)) is not None and sel.kind == "folds" and part == "test"), None)
        of = f" of {code(split)} in {split.where()}" if split is not None else ""
        out.append(Leak("selection", site,
                        f"Scores on each held-out fold{of} (`{ev.data.text()}`) by {code(ev.site)} in "
                        f"{ev.site.where()} are compared inside the fold loop to pick an epoch or setting in "
                        f"{site.where()} ({code(site)}): each fold is then scored on the rows that made the choice, "
                        f"so the cross-validated score is optimistic (pick on a split of the fold's training rows, or "
                        f"fix the number of epochs).",
                        evidence={"choice": step_text(site), "evaluation": step_text(ev.site),
                                  "folds": step_text(split), "cross_validation": True},
                        severity="warning"))
    return out


def _ends_in_held_fold(rec: Record, tok: tuple) -> bool:
    steps = [(rec.selections.get(key), part) for key, part in tok[1:] if key_kind(key) != "unpack"]
    steps = [(sel, part) for sel, part in steps if sel is not None and sel.kind != "resample"]  # (a batch's fields)
    return bool(steps) and steps[-1][0].kind == "folds" and steps[-1][1] == "test"


def _on_final_test(rec: Record, ev) -> bool:
    """Scored on final held-out rows the model was not fitted on."""
    return ev.fit is not None and bool(ev.data.rows) and final_test(rec, ev.data.rows) and \
        overlap(ev.fit.rows, ev.data.rows, sliced_bounds_count(ev.data)) is None


def chosen_scores(rec: Record) -> list[tuple]:
    """(where, evaluations): scores on the final held-out rows compared, maxed or sorted to pick something."""
    out = []
    for score, site, _folds in rec.choices:
        evs = [ev for ev in score.evals if _on_final_test(rec, ev)]
        if evs:
            out.append((site, evs))
    return out


def rebuilt_per_setting(rec: Record) -> list:
    """Evaluations on the final held-out rows of a model rebuilt for each pass of a loop over settings that
    scores the same rows on every pass."""
    return [ev for ev in rec.evals if ev.scored and not ev.cv and _on_final_test(rec, ev) and
            ev.obj is not None and ev.obj.multi > 1 and chosen_by_loops(rec, ev)]


def selected_evaluations(rec: Record) -> set[int]:
    """The evaluations a test-set selection finding names (a multi-test finding on them alone says less)."""
    return {id(ev) for _site, evs in chosen_scores(rec) for ev in evs} | {id(ev) for ev in rebuilt_per_setting(rec)}
