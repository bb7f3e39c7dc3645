"""Multi-test leakage: the same held-out rows score several models or settings, so the test score becomes a
selection criterion. One model scored twice is not a choice; a blend scored once is one model."""

from __future__ import annotations

import ast
from collections import Counter

from ..carried import KEEPS_WEIGHTS_ROOTS
from ..rows import covered
from ..state import Record
from ..values import Eval
from .common import chosen_by_loops, final_test, untouched_test_note
from .selection import selected_evaluations
from .watched import eval_set_evals
from .wording import Leak, code, step_text


def _held_out(ev: Eval) -> bool:
    """Scored on rows the model was not fitted on (copies made by resampling still count as held out here)."""
    return bool(ev.data.rows) and ev.fit is not None and not covered(ev.data.rows, ev.fit.rows)


def _baseline(ev: Eval) -> bool:
    """A dummy baseline (`DummyClassifier(strategy='most_frequent')`): it learns no more than the label counts, so
    setting a model beside it on the test rows measures the model, it chooses none."""
    return ev.obj is not None and ev.obj.cls.rsplit(".", 1)[-1].startswith("Dummy")


def _configs(rec: Record, evs: list[Eval]) -> tuple[int, dict[int, Eval], list[Eval]]:
    """How many model configurations these evaluations score (a model rebuilt per setting counts as two, unless
    every loop over settings around it splits anew: each pass is then scored on other rows); the model objects
    and the evaluation of each configuration."""
    objs: dict[int, Eval] = {}
    configs = 0
    fits: set = set()
    setups: set = set()
    each: list[Eval] = []
    for ev in evs:
        if ev.fit is not None and ev.fit.config:
            if (id(ev.obj), ev.fit.config) in fits:
                continue
            fits.add((id(ev.obj), ev.fit.config))
        setup = _setup(ev)
        if setup is not None and setup in setups and id(ev.obj) not in objs:
            continue  # the same estimator built again with the same literal settings on the same rows
        setups.add(setup)
        each.append(ev)
        if id(ev.obj) in objs:
            if ev.fit is objs[id(ev.obj)].fit and not any(kind in ("settings", "models") for _l, kind in ev.loops):
                continue  # the same training scored again (after the epoch loop that watched it): one model
            configs += 1  # the same model object refitted otherwise (new settings, other data, another pass)
            continue
        objs[id(ev.obj)] = ev
        rebuilt = ev.obj.multi > 1 or ev.tuned
        if rebuilt and any(kind == "settings" for _, kind in ev.loops) and not chosen_by_loops(rec, ev):
            rebuilt = False
        configs += 2 if rebuilt else 1  # rebuilt per setting: several configurations
    return configs, objs, each


def _setup(ev: Eval) -> tuple | None:
    """What a model is, when its constructor in the cells' own code takes only literals: its class and settings,
    the data it was fitted on and its label. Two objects with the same setup are one configuration."""
    obj, fit = ev.obj, ev.fit
    node = obj.site.node if obj is not None and obj.site is not None else None
    if fit is None or obj.multi > 1 or ev.loops or obj.site.via is not None or not isinstance(node, ast.Call) or \
            obj.version:
        return None  # (settings changed by `set_params` are not in the constructor)
    if not all(isinstance(a, ast.Constant) for a in list(node.args) + [k.value for k in node.keywords]):
        return None
    if obj.cls.split(".", 1)[0] in KEEPS_WEIGHTS_ROOTS:
        return None  # `Sequential()`: the layers added after it, not its constructor, say what the network is
    data = fit.data_site.node if fit.data_site is not None else None
    return obj.cls, ast.dump(node), fit.config[2:] if fit.config else None, fit.rows, id(data) if data else None


def _by_task(groups: dict[tuple, list[Eval]]) -> dict[tuple, list[Eval]]:
    """Models of different label columns (`cases` and `deaths` predicted for the same rows) compete for nothing:
    their scores are split by label, and a model whose label is unknown joins each."""
    out: dict[tuple, list[Eval]] = {}
    for (rows, _), evs in groups.items():
        tasks = {ev.fit.config[3] for ev in evs if ev.fit.config} - {None}
        if len(tasks) < 2:
            out[(rows, None)] = evs
            continue
        for task in tasks:
            out[(rows, task)] = [ev for ev in evs if not ev.fit.config or ev.fit.config[3] in (task, None)]
    return out


def _model_name(obj, depth: int = 0) -> str:
    """`Pipeline(LogisticRegression)`: a pipeline or search named with the estimator it wraps."""
    name = obj.cls.rsplit(".", 1)[-1]
    inner = obj.inner
    return f"{name}({_model_name(inner, depth + 1)})" if inner is not None and inner is not obj and depth < 3 \
        else name


def multitest_leaks(rec: Record) -> list[Leak]:
    groups: dict[tuple, list[Eval]] = {}
    for ev in rec.evals:
        if not ev.scored or ev.fit is None or ev.fit.kind != "model" or not _held_out(ev):
            continue
        if ev.cv and not final_test(rec, ev.data.rows):
            continue  # cross-validation compares candidates on folds of training rows (on the test rows, it does not)
        if ev.blended_only or _baseline(ev):
            continue
        groups.setdefault((ev.data.rows, None), []).append(ev)
    for ev in eval_set_evals(rec, exact=True):  # held-out rows watched while each of several models trains
        if ev.fit is None or ev.fit.kind != "model" or not _held_out(ev):
            continue
        group = groups.setdefault((ev.data.rows, None), [])
        if all(other.obj is not ev.obj for other in group):
            group.append(ev)  # (one model watched on them again, as training goes on, is one configuration)
    out: list[Leak] = []
    selected: set[int] | None = None
    for (rows, _task), evs in _by_task(groups).items():
        configs, objs, each = _configs(rec, evs)
        if configs < 2:
            continue
        if not final_test(rec, rows):
            continue  # a validation part (carved from training rows, or a middle part): comparing there is fine
        selected = selected_evaluations(rec) if selected is None else selected
        if all(id(ev) in selected for ev in each) or len(objs) == 1 and any(id(ev) in selected for ev in each):
            continue  # these scores are already shown driving a choice (LEAK004 names it): of one model, the
            # choice's own result scored again (the best epoch's weights reloaded and scored on the same rows)
        last = evs[-1]
        shown = last.data.text()
        name = f"`{shown}`" if shown != "the data" else code(last.site)
        models = sorted({_model_name(ev.obj) for ev in objs.values()})
        built = Counter(_model_name(ev.obj) for ev in objs.values())  # `Sequential` ×4: four networks of one class
        cells = sorted({ev.site.ran_at()[0] + 1 for ev in each})  # where they ran (a function: where it is called)
        loop = " (in a loop over models or settings)" if any(ev.loops for ev in objs.values()) else ""
        out.append(Leak(
            "multi-test", last.site,
            f"The held-out rows {name} score {configs if not loop else 'several'} model configurations{loop}: "
            f"{', '.join(f'`{m}`' + (f' ×{built[m]}' if built[m] > 1 else '') for m in models)} in cell(s) "
            f"{', '.join(map(str, cells))}, and no other "
            f"held-out rows are scored after them{untouched_test_note(rec, rows)}: choosing by these scores makes them "
            f"a selection set, and the best of them an optimistic estimate.",
            evidence={"models": models, "cells": cells, "test": last.data.name,
                      "evaluations": [step_text(ev.site) for ev in each]},
        ))
    return out
