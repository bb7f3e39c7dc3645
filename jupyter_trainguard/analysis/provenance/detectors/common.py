"""Where the final test rows are: which side of each split, cut or mask is held out, which sources are read on
their own and scored last, and which parts are validation sets."""

from __future__ import annotations

from ..rows import POSITIONAL, by_value, key_kind
from ..state import Record as Recorded
from ..values import Eval
from .wording import data_leaves

TRAIN_SIDE = frozenset({"train", "lo", "mid"})
HELD_SIDE = frozenset({"test", "hi", "rest"})
MASK_SIDES = {"sub": "not", "not": "sub"}  # the rows a boolean mask keeps and the rows it leaves out


def final_test(rec, rows: frozenset) -> bool:
    """The rows are a final test set: held out by the split whose held-out part is scored last (every token went
    through a split's test part or a positional cut's held side, never a training-side part: a part carved out of
    training rows, a middle part or a validation part is a validation set), or read on their own, never trained
    on and scored after every split part (a labelled `test.csv`). Folds belong to cross-validation, where
    comparing candidates is the point."""
    if not rows:
        return False
    source, splits = final_places(rec)
    if source is not None and all(tok[0] in source and _no_training_side(rec, tok) for tok in rows):
        return True
    return splits and _split_final(rec, rows)


def _split_final(rec, rows: frozenset) -> bool:
    for tok in rows:
        held = False
        for key, part in tok[1:]:
            sel = rec.selections.get(key)
            kind = sel.kind if sel is not None else None
            if kind == "folds":
                return False
            if kind == "mask" and part == "sub" and (key, part) in _trained_steps(rec) and key in _used_splits(rec):
                return False  # the kept side of `df.sample(frac=0.8)` / `df.drop(train.index)`: the training side
            if kind == "split" or kind in ("slice", "mask") and part in HELD_SIDE | TRAIN_SIDE or \
                    kind == "mask" and (_complement_trained(rec, key, part) or key_kind(key) == "unpack"):
                training = not _held_side(rec, key, part) and not (part == "mid" and _last_middle(rec, tok[0], key))
                if training:
                    if kind == "split" and key in _used_splits(rec) or key in _reserved_cuts(rec):
                        return False  # a split's test part is kept aside for the end, scored yet or not
                    if kind == "split":
                        continue  # its test part is never touched: the parts carved from its training side
                        # are the notebook's last word, so they are its test set
                    continue  # the rows after this cut are no held-out set: it is the labelled pool
                held = True
        if not held:
            return False
    return True


def _held_side(rec, key: object, part: str) -> bool:
    """Whether this side of a split, cut or mask is its held-out side. Several sides no model is trained on but
    models are scored on (held-out rows split again, `X_test, X_val = train_test_split(X_test)`): the side scored
    last. Else a split's test part, and of a cut the side models were not trained on when the other side was
    (`X_test = X[:1000]`, `X_train = X[1000:]`), else its later rows."""
    trained = _trained_steps(rec)
    sel = rec.selections.get(key)
    split = sel is not None and sel.kind == "split"
    if (key, part) in trained and not split:
        return False
    family, value = by_value((key, part))
    last = _scored_last(rec, trained).get(family)
    if last is not None:
        return value == last
    if family != key:
        return _other_value_trained(key, trained)
    mine = {p for k, p in trained if k == key} if split else None
    if mine and mine <= HELD_SIDE:
        return part not in mine  # models train on its test part only (`x_test, x_train, ... = train_test_split(...)`)
    if split:  # a split's test part is kept aside for the end, scored yet or not (a search fitted on it leaks);
        # a middle part (`train, val, test = random_split(ds, [a, b, c])`) is the last word when the test is untouched
        return part in HELD_SIDE or part.startswith("part") and key not in _used_splits(rec)
    return any(k == key for k, _p in trained) or part in HELD_SIDE


def untouched_test_note(rec, rows: frozenset) -> str:
    """When these rows are the last word only because the test part beside them is never touched: a clause that
    says so (a validation part is then what the notebook reports), else ''."""
    for tok in rows:
        for key, part in tok[1:]:
            sel = rec.selections.get(key)
            if sel is not None and sel.kind == "split" and (part in TRAIN_SIDE or part.startswith("part")) and \
                    key not in _used_splits(rec):
                return (f" (the test part split off in {sel.site.where()} is never scored, so these validation "
                        f"scores are the ones the notebook reports)") if sel.site is not None else ""
    return ""


def _used_splits(rec) -> set:
    """The splits whose held-out part some call takes: a model is scored on it, predicts it or is fitted on it
    (a transformer or resampler too), a fit watches it, a prediction is read off it, or a call the analysis cannot
    follow is given it. A test part split off and never touched again, or only summarised (its latest date, its
    mean), reserves nothing. Cached on the record."""
    used = _cache(rec).get("used_splits")
    if used is None:
        rows = [ev.data.rows for ev in rec.evals] + [f.rows for f in rec.fits if f.kind != "statistic"] + \
            [d.rows for _obj, v, _site, _kwarg, _early in rec.eval_sets for d in data_leaves(v)]
        used = _cache(rec)["used_splits"] = {key for r in rows for tok in r for key, part in tok[1:]
                                             if part in HELD_SIDE} | {key for key, part in rec.touched
                                                                      if part in HELD_SIDE} | _resplit(rec, rows)
    return used


def _resplit(rec, rows: list) -> set:
    """Splits of the same rows made again (`for seed in range(10): train_test_split(df, random_state=seed)`) whose
    held-out part at the same depth some call takes: the data's test part is taken, whichever split made it."""
    places: dict = {}
    held: set = set()
    for r in rows:
        for tok in r:
            for i, (key, part) in enumerate(tok[1:]):
                sel = rec.selections.get(key)
                if sel is not None and sel.kind == "split":
                    places.setdefault((tok[0], i), set()).add(key)
                    if part in HELD_SIDE:
                        held.add((tok[0], i))
    return {key for place in held for key in places.get(place, ())}


def _trained_steps(rec) -> set:
    """Every selection step (key, part) some model's training rows went through. Cached on the record."""
    trained = _cache(rec).get("trained")
    if trained is None:
        trained = _cache(rec)["trained"] = {step for f in rec.fits if f.kind == "model" for tok in f.rows
                                              for step in tok[1:]}
    return trained


def _complement_trained(rec, key: object, part: str) -> bool:
    """The rows a boolean mask leaves out while models are trained on the rows it keeps, or the other way round
    (`train = df[msk]`, `test = df[~msk]`): the mask splits the data, and this is its held-out side."""
    other = MASK_SIDES.get(part)
    trained = _trained_steps(rec)
    if (key, part) in trained:
        return False
    return other is not None and (key, other) in trained or part == "sub" and _other_value_trained(key, trained)


def _other_value_trained(key: object, trained: set) -> bool:
    """Models trained on the rows where a column equals one value, and these rows hold another value of it
    (`df[df.part == 'train']`, `df[df.part == 'test']`): a split by that column's values, this a held-out side."""
    family, value = by_value((key, "sub"))
    return family != key and any(by_value(step)[0] == family and by_value(step)[1] != value for step in trained)


def _last_middle(rec, source: object, key: object) -> bool:
    """A middle slice no model is trained on, while no other positional part of its source is scored on its held
    side or kept aside under a name (`train = df.iloc[:74]`, `test = df.iloc[75:99]`): the held-out set, not a
    validation part before one (`valid = s[n:m]`, `test = s[m:]`: the test part is reserved, scored yet or not)."""
    trained = _trained_steps(rec)
    if any(k == key for k, _p in trained):
        return False
    scored = [ev.data.rows for ev in rec.evals if ev.scored and not ev.cv and ev.fit is not None and
              ev.fit.kind == "model"]
    kept = _kept_rows(rec)
    for rows in scored + kept:
        for tok in rows:
            if tok[0] == source and any(k != key and key_kind(k) in POSITIONAL and p in ("hi", "mid") and
                                        (k, p) not in trained for k, p in tok[1:]):
                return False
    return True


def _scored_last(rec, trained: set) -> dict:
    """For each selection with several sides no model is trained on but models are scored on (held-out rows
    split again into a validation and a test set): the side whose last score comes later."""
    cached = _cache(rec).get("scored_last")
    if cached is None:
        order: dict = {}
        for i, ev in enumerate(rec.evals):
            if ev.scored and not ev.cv and ev.fit is not None and ev.fit.kind == "model":
                for tok in ev.data.rows:
                    for step in tok[1:]:
                        if step not in trained:
                            family, value = by_value(step)
                            order.setdefault(family, {})[value] = i
        cached = _cache(rec)["scored_last"] = {key: max(parts, key=parts.get) for key, parts in order.items()
                                               if len(parts) > 1}
    return cached


def _cache(rec) -> dict:
    """What the detectors worked out about one run of the interpreter (it drops this when it runs again)."""
    return rec.__dict__.setdefault("_detector_cache", {})


def _reserved_cuts(rec) -> set:
    """The cuts and masks whose held-out side (the rows after a cut) is a held-out set: a model is scored or
    watched on it, trained on it, or it is kept aside untouched. Only then is a part carved from their training
    side a validation set. A cut whose other side is never taken (`df[:100000]`: a sample) or is only predicted,
    never scored (`all[:n_train]` of a train file stacked on an unlabelled test file), leaves the labelled rows
    as the pool a split then holds the test set out of. Cached on the record."""
    cached = _cache(rec).get("reserved")
    if cached is not None:
        return cached
    watched = [d.rows for _obj, v, _site, _kwarg, early in rec.eval_sets if early for d in data_leaves(v)]
    scored = [ev.data.rows for ev in rec.evals if ev.scored and not ev.cv] + watched + \
        [f.rows for f in rec.fits if f.kind == "model"]
    predicted = [ev.data.rows for ev in rec.evals if not ev.scored]
    kept = _kept_rows(rec)
    unlabelled = {x for pair in _held_keys(rec, predicted) for x in pair}  # rows only predicted, by any cut
    out = {key for _root, key in _held_keys(rec, scored)}
    out |= {key for root, key in _held_keys(rec, kept) if root not in unlabelled and key not in unlabelled}
    _cache(rec)["reserved"] = out
    return out


def _kept_rows(rec) -> list:
    """The rows of every data value the notebook still holds under a name when it ends."""
    return [v.rows for v in rec.env.values() if v is not None and getattr(v, "is_data", False) and v.rows]


def _held_keys(rec, row_sets: list) -> set:
    """(source, cut) for each cut or mask whose held-out side these row sets hold."""
    out = set()
    for rows in row_sets:
        for tok in rows:
            for key, part in tok[1:]:
                sel = rec.selections.get(key)
                if sel is not None and sel.kind in ("slice", "mask") and (part in HELD_SIDE | TRAIN_SIDE or
                                                                    _complement_trained(rec, key, part)) and \
                        _held_side(rec, key, part):
                    out.add((tok[0], key))
    return out


def _no_training_side(rec, tok: tuple) -> bool:
    """No step of the token is a division into parts (a split, folds, the parts an unknown call returned) or a
    cut's training side."""
    for key, part in tok[1:]:
        sel = rec.selections.get(key)
        if sel is not None and (sel.kind in ("split", "folds") or part in TRAIN_SIDE and sel.kind != "mask" or
                                key_kind(key) == "unpack"):
            return False
    return True


def _held_file(rec, rows: frozenset, excluded: set) -> frozenset | None:
    """The sources these rows were read or built from, when each was read or built on its own (not trained on,
    never split): a labelled test file or folder (`ImageFolder('data/test')`), or a test matrix stacked from
    features extracted apart."""
    roots = frozenset(tok[0] for tok in rows)
    if not roots or any(root[0] not in ("read", "made", "used", "declared") or root in excluded for root in roots):
        return None
    return roots if all(_no_training_side(rec, tok) for tok in rows) else None


def _trained_roots(rec) -> set:
    """The sources some model was trained on. A source that models trained elsewhere are scored on, and whose own
    models are only scored on their very training rows (a network fitted on the test file by mistake, then
    evaluated on it: the overlap finding names it), is still the test file of the others."""
    models = [f for f in rec.fits if f.kind == "model"]
    roots = {tok[0] for f in models for tok in f.rows}
    scored_from_elsewhere = {tok[0] for ev in rec.evals if ev.scored and not ev.cv and ev.fit is not None and
                             ev.fit.kind == "model" for tok in ev.data.rows
                             if tok[0] not in {t[0] for t in ev.fit.rows}}
    for root in roots & scored_from_elsewhere:
        own = [f for f in models if any(tok[0] == root for tok in f.rows)]
        last = max(ev.site.ran_at() for ev in rec.evals if ev.scored and any(t[0] == root for t in ev.data.rows))
        if all(_self_scored(rec, f) or _final_refit(rec, f, last) for f in own):
            roots.discard(root)
    return roots


def _final_refit(rec, fit, last_scored: tuple) -> bool:
    """A model fitted on these rows only after they were last scored and never scored itself (the chosen model
    refitted on every labelled row to be saved): the scores before it were read on rows no model had seen."""
    return fit.site.ran_at() > last_scored and not any(ev.fit is fit and ev.scored for ev in rec.evals)


def _self_scored(rec, fit) -> bool:
    """A fit whose model is scored, and only on the very rows it was fitted on."""
    evs = [ev for ev in rec.evals if ev.fit is fit and ev.scored and not ev.cv]
    return bool(evs) and all(ev.data.rows == fit.rows for ev in evs)


def _split_roots(rec) -> set:
    """The sources some split or fold divided (as evaluated or fitted). Cached on the record."""
    found = _cache(rec).get("split_roots")
    if found is None:
        found = _cache(rec)["split_roots"] = {
            tok[0] for v in [ev.data.rows for ev in rec.evals] + [f.rows for f in rec.fits] for tok in v
            if any(getattr(rec.selections.get(k), "kind", None) in ("split", "folds") for k, _p in tok[1:])}
    return found


def final_places(rec) -> tuple[object, bool]:
    """Where the final test rows are: the sources read or built on their own (no model trained on them, never
    split, not rebuilt inside a loop over folds) that a metric scores after every split's held-out part
    (`test.csv` with labels: the split parts before it are validation sets), or else the held-out parts of the
    splits. Cached on the record."""
    cached = _cache(rec).get("final_places")
    if cached is not None:
        return cached
    trained, split_roots = _trained_roots(rec), _split_roots(rec)
    last_src: dict = {}
    fitted_on: dict = {}  # held file -> the sources the models scored on it were trained on
    last_split = None
    for ev in rec.evals:
        if not ev.scored or ev.cv or ev.fit is None or ev.fit.kind != "model" or not ev.data.rows:
            continue
        at = ev.site.ran_at()
        in_folds = any(kind == "folds" for _loop, kind in ev.loops)  # rows built per fold are cross-validation's
        root = None if in_folds else _held_file(rec, ev.data.rows, trained | split_roots)
        if root is not None:
            last_src[root] = max(last_src.get(root, at), at)
            fitted_on.setdefault(root, set()).update(tok[0] for tok in ev.fit.rows)
        elif _split_final(rec, ev.data.rows):
            last_split = at if last_split is None else max(last_split, at)
    for _obj, v, site, _kwarg, early in rec.eval_sets:  # watched with early stopping: scored on every epoch
        for d in data_leaves(v) if early else ():
            root = _held_file(rec, d.rows, trained | split_roots)
            if root is not None:
                last_src[root] = max(last_src.get(root, site.ran_at()), site.ran_at())
    source = max(last_src, key=last_src.get) if last_src else None
    if source is not None and last_split is not None and last_split > last_src[source]:
        source = None  # a split part scored after the file: the file was a validation set
    if source is not None:
        source = _other_pipelines(source, last_src, fitted_on)
    out = (source, source is None)
    _cache(rec)["final_places"] = out
    return out


def _other_pipelines(source: frozenset, last_src: dict, fitted_on: dict) -> frozenset:
    """The test file scored last, with each file scored before it whose models were all trained on other sources
    than every model scored after it (two pipelines in one notebook, each with its own training and test file).
    A `val.csv` scored before `test.csv` by models of the same training file stays a validation set."""
    later: set = set(fitted_on.get(source, ()))
    out = set(source)
    for root in sorted(last_src, key=last_src.get, reverse=True):
        if root == source:
            continue
        mine = fitted_on.get(root, set())
        if mine and later and not mine & later:
            out |= root
        later |= mine
    return frozenset(out)


def chosen_by_loops(rec: Recorded, ev: Eval) -> frozenset:
    """The loops over settings around an evaluation that scored the same held-out rows on every pass (a loop
    that splits anew on each pass, `for seed in range(5): train_test_split(..., random_state=seed)`, scores
    each pass on other rows: it repeats an estimate, it chooses nothing)."""
    settings = {lid for lid, kind in ev.loops if kind == "settings"}
    if not settings:
        return frozenset()
    resplit = {lid for tok in ev.data.rows for key, _side in tok[1:] if key in rec.selections
               for lid in rec.selections[key].loops}
    return frozenset(settings - resplit)


def within_training_split(rec: Recorded, rows: frozenset) -> bool:
    """Rows that all lie on the training side of a split (`X_train` of `train_test_split`), or apart from the
    labelled test file scored last: what is learned from them never reaches that held-out part."""
    source, split = final_places(rec)[0], _split_roots(rec)
    return bool(rows) and (all(any(part == "train" and getattr(rec.selections.get(key), "kind", None) == "split"
                                   for key, part in tok[1:]) for tok in rows) or
                           source is not None and not any(tok[0] in source or tok[0] in split for tok in rows))
