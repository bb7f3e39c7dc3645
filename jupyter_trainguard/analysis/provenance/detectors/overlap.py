"""Overlap leakage: a model evaluated on rows it was fitted on (fitted on all the data and scored on a part,
scored on its own training rows, or rows duplicated by resampling before the split)."""

from __future__ import annotations

import ast

from ..rows import DUP, covered, dup_step, key_kind, overlap, positional, stable_overlap
from ..state import Record
from ..values import TRAIN_FORWARD, Eval, Site
from .common import within_training_split
from .watched import MONITORED, eval_set_evals
from .wording import Leak, code, path_text, selection_site, sliced_bounds_count, step_text

MODELS = ("model",)


def overlap_leaks(rec: Record, predict_counts: bool = True, pending: bool = True) -> list[Leak]:
    """Every overlap leak of the record; `pending`: also a resampling before the split whose held-out copies
    nothing has scored yet (the code so far of a live session, not a finished notebook)."""
    out: list[Leak] = []
    held_scores: dict[int, bool] = {}
    for ev in rec.evals:
        if ev.fit is not None and ev.fit.kind == "model" and ev.data.rows and ev.scored:
            if overlap(ev.fit.rows, ev.data.rows, sliced_bounds_count(ev.data)) is None:
                held_scores[id(ev.obj)] = True
    seen: set = set()
    evs = eval_set_evals(rec, exact=True)
    monitored = {id(ev) for ev in evs}
    watches_held = {id(ev.fit) for ev in evs if ev.fit is not None and not (
        covered(ev.data.rows, ev.fit.rows) and covered(ev.fit.rows, ev.data.rows))}  # also other rows than its own
    for ev in list(rec.evals) + evs:
        if ev.cv:
            dup = next((st for tok in sorted(ev.data.rows, key=repr) for st in tok[1:] if st[1] == DUP), None)
            if dup is not None and ("cv", id(dup[0])) not in seen:
                seen.add(("cv", id(dup[0])))
                out.append(_leak(rec, ev, dup, False, None, False))
            continue
        if ev.fit is None or ev.fit.kind not in MODELS or not (ev.scored or predict_counts):
            continue
        trained, scored = ev.fit.rows, ev.data.rows
        bounds = sliced_bounds_count(ev.data)
        if overlap(trained, scored, bounds) is None:
            continue
        pair = stable_overlap(trained, scored, bounds)
        same = covered(scored, trained) and covered(trained, scored)
        dup = None if same else dup_step(*pair)  # scored on its very training rows: copies among them add nothing
        if dup is not None:
            seen.add(("fit", id(dup[0])))
        elif not (covered(scored, trained) or covered(trained, scored)) and _nested(*pair):
            continue  # each side holds rows the other lacks (window context before the test rows): not proven
        if not ev.scored and covered(scored, trained) and _drawn_to_show(rec, scored, trained):
            continue  # a few training rows drawn to show what the model answers (`X.sample(5)`), nothing scores them
        if not ev.scored and id(ev) in rec.imputed:
            continue  # predictions that fill a table's cells (a model-based imputer): values, not a score
        if (not ev.scored or ev.method == "kneighbors") and ev.obj is not None and ev.obj.learned is not None:
            continue  # a clusterer's labels for its rows (`KMeans().fit(X).predict(X)`) that nothing scores, or the
            # neighbours of an item looked up in the table it indexes (a recommender's query)
        if not ev.scored and dup is None and covered(trained, scored) and held_scores.get(id(ev.obj), False):
            continue  # unscored predictions over all the rows (a fitted line to plot) of a model scored on held-out
            # rows elsewhere: that score is its evaluation
        if same and dup is None and ev.method == TRAIN_FORWARD and held_scores.get(id(ev.obj), False):
            continue  # a running training accuracy logged beside the model's held-out score: a training log, as
            # Keras prints one (alone, it is the only score the notebook gives)
        if same and dup is None and (not ev.scored or id(ev) in monitored and (
                id(ev.fit) in watches_held or held_scores.get(id(ev.obj), False))):
            continue  # predictions on the training rows that no metric reads (stacking, residual plots), or the
            # training rows watched beside the validation rows (`eval_set=[(X_tr, y_tr), (X_va, y_va)]`); watched
            # alone (`validation_data=(X_train, y_train)`), their loss is the only score the model gets
        key = (id(ev.fit), id(ev.site.cell), ev.site.line) if not _carried_fold(ev) else ("carried", id(ev.fit))
        if key in seen:
            continue
        seen.add(key)
        out.append(_leak(rec, ev, dup, same, pair,
                         held_scores.get(id(ev.obj), False)))
    if pending:
        out += _pending_resampling(rec, seen)
    return out


def _balances(rec: Record, dup: tuple, tokens: list) -> bool:
    """Whether a resampling balances classes: an imbalanced-learn oversampler (`fit_resample`), or copies drawn
    from a filtered part of the rows (`resample(df[df.y == 1], n_samples=...)`: one class upsampled). Copies of
    every row (`pd.concat([df, df])`, flipped images added) balance nothing, nor do those of the rows with no
    missing value (`df.dropna()`: a filter on completeness, not on a class)."""
    sel = rec.selections.get(dup[0])
    node = sel.site.node if sel is not None and sel.site is not None else None
    if getattr(getattr(node, "func", None), "attr", None) in ("fit_resample", "fit_sample"):
        return True
    return any(getattr(rec.selections.get(key), "kind", None) == "mask" and key_kind(key) != "null"
               for tok in tokens if dup in tok for key, _part in _before(tok, dup)[1:])


def _before(tok: tuple, step: tuple) -> tuple:
    """The token up to (not including) a step: the rows a resampling was applied to."""
    return tok[:tok.index(step)] if step in tok else tok


def _carried_fold(ev: Eval) -> object | None:
    """The fold loop (its selection key) whose held-out fold this evaluation scores on a network that kept learning
    over the earlier folds (carried.py), or None."""
    carried = ev.fit.carried if ev.fit is not None else frozenset()
    return next((key for tok in ev.data.rows for key, part in tok[1:] if key in carried and part == "test"), None)


def _nested(a: tuple, b: tuple) -> bool:
    """One token is the other or a part of it (not two random selections that share rows)."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _pending_resampling(rec: Record, seen: set) -> list[Leak]:
    """A model trained on one part of rows that were duplicated before the split, before anything is scored."""
    out: list[Leak] = []
    for fit in rec.fits:
        if fit.kind != "model":
            continue
        for tok in sorted(fit.rows, key=repr):
            steps = tok[1:]
            for i, st in enumerate(steps[:-1]):
                if st[1] != DUP or ("cv", id(st[0])) in seen or ("fit", id(st[0])) in seen:
                    continue
                sel = rec.selections.get(steps[i + 1][0])
                if sel is None or sel.kind not in ("split", "folds", "slice"):
                    continue
                seen.add(("fit", id(st[0])))
                rs = selection_site(rec.selections.get(st[0]))
                out.append(Leak("resampled", rs or fit.site,
                                f"{code(rs)} in {rs.where() if rs else 'an earlier cell'} makes copies of rows "
                                f"before {code(sel.site)} splits them in {sel.site.where()}: copies of the rows "
                                f"{code(fit.site)} trains on land in the held-out part "
                                f"({path_text([('', rs), ('split', sel.site), ('', fit.site)])}).",
                                evidence={"resampling": step_text(rs), "split": step_text(sel.site),
                                          "fit": step_text(fit.site), "pending": True,
                                          "synthetic": st[0] in rec.synthetic,
                                          "balancing": _balances(rec, st, [tok])}))
    return out


def _split_after(rec: Record, pair: tuple | None, after: tuple | None = None) -> Site | None:
    """The selection that separated the evaluated rows from the rows trained on (or that followed a resampling)."""
    if pair is None:
        return None
    a, b = pair
    longer = b if len(b) >= len(a) else a
    steps = list(longer[1:])
    if after is not None and after in steps:
        steps = steps[steps.index(after) + 1:]
    else:
        steps = steps[min(len(a), len(b)) - 1:]
    for key, _part in steps:
        sel = rec.selections.get(key)
        if sel is not None and sel.kind in ("split", "slice", "mask", "folds"):
            return sel.site
    return None


def _leak(rec: Record, ev: Eval, dup, same_rows: bool, pair: tuple | None, has_heldout_score: bool) -> Leak:
    fit = ev.fit
    model = code(fit.site) if fit is not None else "the model"
    evidence = {"fit": step_text(fit.site if fit is not None else None), "evaluation": step_text(ev.site),
                "trained_on": fit.data_name if fit is not None else "",
                "evaluated_on": ev.data.text(), "scored": ev.scored}
    if dup is not None:
        sel = rec.selections.get(dup[0])
        rs = selection_site(sel)
        evidence["resampling"] = step_text(rs)
        evidence["synthetic"] = dup[0] in rec.synthetic
        evidence["balancing"] = _balances(rec, dup, list(ev.data.rows) + list(fit.rows if fit is not None else ()))
        split = _split_after(rec, pair, dup)
        evidence["split"] = step_text(split)
        trail = path_text([("", rs), ("split", split), ("", fit.site if fit is not None else None), ("", ev.site)])
        if ev.cv and within_training_split(rec, frozenset(_before(tok, dup) for tok in ev.data.rows)):
            return Leak("validation", rs or ev.site,
                        f"{code(rs)} in {rs.where() if rs else 'an earlier cell'} makes copies of rows of the training "
                        f"split, then {code(ev.site)} in {ev.site.where()} cross-validates on them: copies of each "
                        f"fold's training rows land in its held-out fold, so the cross-validated score is optimistic "
                        f"(the test part stays untouched) ({trail}).", evidence=evidence, severity="warning")
        if ev.cv:
            return Leak("resampled", rs or ev.site,
                        f"{code(rs)} in {rs.where() if rs else 'an earlier cell'} makes copies of rows, then "
                        f"{code(ev.site)} in {ev.site.where()} cross-validates on them: copies of the training "
                        f"rows land in the held-out folds ({trail}).", evidence=evidence)
        return Leak("resampled", rs or ev.site,
                    f"{code(rs)} in {rs.where() if rs else 'an earlier cell'} makes copies of rows before they are "
                    f"split, so the model fitted by {model} is evaluated by {code(ev.site)} on copies of its "
                    f"training rows ({trail}).", evidence=evidence)
    trail = path_text([("", fit.site), ("", ev.site)])
    if same_rows:
        sev = "warning" if has_heldout_score else None
        evidence["held_out_score_too"] = has_heldout_score
        if ev.method == TRAIN_FORWARD:
            scored = ev.metric or ev.site
            return Leak("train-rows", scored,
                        f"{code(scored)} in {scored.where()} scores the output of the training step's own forward "
                        f"pass {code(ev.site)} ({ev.site.where()}) against the batch's labels: a running training "
                        f"accuracy measures memorisation, not generalisation.", evidence=evidence, severity=sev)
        if ev.method in MONITORED:
            return Leak("train-rows", ev.site,
                        f"{code(ev.site)} in {ev.site.where()}, line {ev.site.line} watches the model on the very rows "
                        f"it trains on (`{ev.method}`) and on no other rows: the validation loss and metrics it "
                        f"reports measure memorisation, not generalisation.", evidence=evidence, severity=sev)
        if ev.method in ("fit_predict", "labels_"):  # an unsupervised model's answers for its own rows
            kind = ev.obj.cls.rsplit(".", 1)[-1] if ev.obj is not None else "model"
            if ev.metric is not None:
                evidence["metric"] = step_text(ev.metric)
            return Leak("train-rows", ev.site,
                        f"{code(ev.site)} in {ev.site.where()} gives the {kind}'s answers for the very rows it was "
                        f"fitted on, scored against their labels: this measures how well it fits those rows, not "
                        f"how it does on new ones ({trail}).", evidence=evidence, severity=sev)
        if ev.method == "return_train_score":
            return Leak("train-rows", ev.site,
                        f"{code(ev.site)} in {ev.site.where()} also scores each fold's model on the folds it was "
                        f"fitted on (`return_train_score=True`): those training scores measure memorisation, not "
                        f"generalisation.", evidence=evidence, severity="warning")  # (held-out folds beside)
        same = code(ev.site) == model and ev.site.cell is fit.site.cell  # `model(X_train)` trains, then scores
        at = (lambda s: f"{s.where()}, line {s.line}") if same else (lambda s: s.where())
        return Leak("train-rows", ev.site,
                    f"{code(ev.site)} in {at(ev.site)} evaluates the model on the rows it was fitted on by "
                    f"{model} in {at(fit.site)}: this measures memorisation, not generalisation ({trail}).",
                    evidence=evidence, severity=sev)
    if fit is not None and fit.via is not None:
        return Leak("overlap", ev.site,
                    f"{code(ev.site)} in {ev.site.where()} scores a model read back by {code(fit.via)} "
                    f"({fit.via.where()}), one of the models {model} ({fit.site.where()}) saved pass by pass in a "
                    f"fold loop: it was trained on other folds' rows, and they hold the fold these variables were "
                    f"left on, so the score is inflated. Score each fold's model on its own fold inside the loop "
                    f"({path_text([('', fit.site), ('', fit.via), ('', ev.site)])}).", evidence=evidence)
    folds = _carried_fold(ev)
    if folds is not None:
        loop = selection_site(rec.selections.get(folds))
        evidence["folds"] = step_text(loop)
        return Leak("overlap", ev.site,
                    f"{code(ev.site)} in {ev.site.where()} scores a held-out fold on a model built once, before "
                    f"the fold loop {code(loop)} ({loop.where() if loop else 'an earlier cell'}): {model} goes on "
                    f"from what the earlier folds taught it (a network's weights, `partial_fit`, `warm_start`), and "
                    f"their training rows hold this fold's rows, so from the second fold on the score is inflated. "
                    f"Build the model (or restore its initial weights) inside the loop "
                    f"({path_text([('', loop), ('', fit.site), ('', ev.site)])}).",
                    evidence=evidence)
    parted = _two_selections(rec, pair)
    if parted is not None:
        how, sa, sb = parted
        evidence[how] = [step_text(sa), step_text(sb)]
        trail = path_text([("", sa), ("", sb), ("", fit.site), ("", ev.site)])
        what = "take overlapping ranges of" if how == "slices" else "each draw rows at random from"
        return Leak("overlap", ev.site,
                    f"{code(sa)} ({sa.where()}) and {code(sb)} ({sb.where()}) {what} the same rows, so "
                    f"{code(ev.site)} in {ev.site.where()} evaluates on rows that {model} in {fit.site.where()} "
                    f"already trained on: the score is inflated ({trail}).", evidence=evidence)
    split = _split_after(rec, pair)
    evidence["split"] = step_text(split)
    trail = path_text([("", fit.site), ("split", split), ("", ev.site)])
    names = ""
    if ev.data.name and fit.data_name:
        if covered(ev.data.rows, fit.rows):
            names = f" (`{ev.data.name}` is part of `{fit.data_name}`)"
        elif covered(fit.rows, ev.data.rows):
            names = f" (`{ev.data.name}` includes all of `{fit.data_name}`)"
        else:
            names = f" (`{ev.data.name}` and `{fit.data_name}` share rows)"
    return Leak("overlap", ev.site,
                f"{code(ev.site)} in {ev.site.where()} evaluates on rows that {model} in {fit.site.where()} "
                f"already trained on{names}: the score is inflated ({trail}).",
                evidence=evidence)


def _two_selections(rec: Record, pair: tuple | None) -> tuple[str, Site, Site] | None:
    """Where the trained and the evaluated rows part: two positional slices whose ranges overlap (`slices`), or
    two random draws from the same rows (`draws`: `resample`, `sample`)."""
    if pair is None:
        return None
    for sa, sb in zip(pair[0][1:], pair[1][1:]):
        if sa == sb:
            continue
        if sa[0] == sb[0]:
            return None
        how = "slices" if positional(sa, sb) else \
            "draws" if not {key_kind(sa[0]), key_kind(sb[0])} - {"resample", "sample"} else None
        a, b = (selection_site(rec.selections.get(st[0])) for st in (sa, sb))
        return (how, a, b) if how is not None and a is not None and b is not None else None
    return None


def _drawn_to_show(rec: Record, scored: frozenset, trained: frozenset) -> bool:
    """Every predicted row is a random sample of a given size (`X.sample(5)`, not `frac=0.8`: a training part)
    drawn from the rows the model was fitted on."""
    for tok in scored:
        base = next((t for t in trained if tok[:len(t)] == t), None)
        steps = tok[len(base):] if base is not None else ()
        sites = [getattr(rec.selections.get(key), "site", None) for key, _side in steps]
        if not steps or any(key_kind(key) != "sample" for key, _side in steps) or any(
                s is None or not isinstance(s.node, ast.Call) or any(k.arg == "frac" for k in s.node.keywords)
                for s in sites):
            return False
    return True
