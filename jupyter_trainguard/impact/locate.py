"""Find the live objects behind the reported metric: the model, the rows it was fitted on, the rows it was scored on."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .metric import metric_name, reported_value
from .scene import FitCall, Scene, ScoreCall

EVAL_ROLES = {"test": 0, "val": 1}
DEEP_LEARNING = ("torch", "tensorflow", "keras", "tf_keras", "jax", "flax", "skorch", "scikeras")


class NotMeasurable(Exception):
    """Why the impact cannot be measured (the text follows 'not measured: ')."""


@dataclass
class Setup:
    """The model and the rows behind the reported metric, all live objects (never modified)."""

    model_name: str
    model: Any
    fit: FitCall
    score: ScoreCall
    xa: Any
    ya: Any
    xe: Any
    ye: Any
    metric: str
    reported: float | None
    reported_from: str  # "variable acc" | "recomputed"

    def objects(self) -> list[str]:
        names = [self.model_name, self.fit.x, self.fit.y, self.score.x, self.score.y]
        return [n for n in dict.fromkeys(names) if n]


def model_problem(model: Any) -> str | None:
    """Why `model` cannot be refitted from a clone (None when it can)."""
    mod = (type(model).__module__ or "").split(".")[0]
    if mod in DEEP_LEARNING:
        return (
            f"{type(model).__name__} is a {mod} model (a refit would retrain the network; use "
            "`trainguard fix --verify` on the notebook)"
        )
    if not (hasattr(model, "fit") and hasattr(model, "get_params")):
        return f"{type(model).__name__} is not a scikit-learn compatible estimator"
    try:
        from sklearn.base import clone

        clone(model)
    except Exception as exc:  # noqa: BLE001 - whatever clone refuses
        return f"{type(model).__name__} is not clonable ({type(exc).__name__})"
    return None


def _role(name: str) -> str | None:
    from ..runtime.splits import role_from_name

    found = role_from_name(name)
    return found[0] if found else None


def candidates(scene: Scene, ns: dict[str, Any]) -> list[tuple[ScoreCall, FitCall]]:
    """(metric call, fit call) pairs whose objects are live, the most likely reported first: a test split before
    a validation split, a later cell before an earlier one."""
    usable: list[tuple[ScoreCall, FitCall]] = []
    unfit: list[str] = []
    for sc in scene.scores:
        if not all(n in ns for n in (sc.model, sc.x, sc.y)):
            continue
        fit = scene.fit_of(sc.model, sc.cell)
        if fit is None or fit.x is None or fit.y is None or fit.x not in ns or fit.y not in ns:
            unfit.append(sc.model)
            continue
        if fit.x == sc.x:
            continue  # a training score, not the reported evaluation
        usable.append((sc, fit))
    if not usable:
        if unfit:
            raise NotMeasurable(f"no `{unfit[-1]}.fit(X, y)` call with X and y still in the namespace was found")
        raise NotMeasurable(
            "no metric computed from a fitted model on evaluation rows was found in the executed "
            "cells (model.score(X_test, y_test), accuracy_score(y_test, model.predict(X_test)), ...)"
        )
    order = {id(p[0]): i for i, p in enumerate(usable)}
    return sorted(usable, key=lambda p: (EVAL_ROLES.get(_role(p[0].x) or "", 2), -p[0].cell, -order[id(p[0])]))


def choose(
    pairs: list[tuple[ScoreCall, FitCall]], evidence: dict[str, Any], category: str
) -> tuple[ScoreCall, FitCall]:
    """The pair a finding is about: the metric in its evaluation cell, or the model fitted in its fit cell (the
    finding's cells count from 1); else the most likely reported metric."""
    cell = evidence.get("eval_cell")
    if isinstance(cell, int):
        found = [p for p in pairs if p[0].cell + 1 == cell]
        if not found:
            raise NotMeasurable(
                f"the evaluation in cell {cell} is not a metric of a fitted model on live rows "
                "that can be computed again"
            )
        return found[0]
    cell = evidence.get("fit_cell")
    if category == "leakage.target" and isinstance(cell, int):
        found = [p for p in pairs if p[1].cell + 1 == cell]
        if not found:
            raise NotMeasurable(f"the model fitted in cell {cell} is not scored on live evaluation rows")
        return found[0]
    return pairs[0]


def setup_for(pair: tuple[ScoreCall, FitCall], ns: dict[str, Any]) -> Setup:
    """The Setup of a (metric, fit) pair; NotMeasurable when its model cannot be refitted from a clone."""
    sc, fit = pair
    model = ns[sc.model]
    problem = model_problem(model)
    if problem:
        raise NotMeasurable(problem)
    reported = reported_value(sc, ns)
    return Setup(
        sc.model,
        model,
        fit,
        sc,
        ns[fit.x],
        ns[fit.y],
        ns[sc.x],
        ns[sc.y],
        metric_name(sc, model),
        reported,
        f"variable {sc.target}" if reported is not None else "recomputed",
    )


def locate(scene: Scene, ns: dict[str, Any]) -> Setup:
    """The Setup behind the most likely reported evaluation metric; NotMeasurable with the reason otherwise."""
    return setup_for(candidates(scene, ns)[0], ns)


# -- rows ----------------------------------------------------------------------------------------------------------


def n_rows(value: Any) -> int:
    return int(getattr(value, "shape", [len(value)])[0])


def take(value: Any, index: Any) -> Any:
    """Rows `index` (a boolean mask or positions) of a frame, series or array, as a new object."""
    if hasattr(value, "iloc"):
        return value.iloc[index].copy()
    import numpy as np

    return np.asarray(value)[index].copy()


def duplicate(value: Any) -> Any:
    """A copy the refit may hand to estimators that write into their input (copy=False)."""
    if hasattr(value, "copy"):
        try:
            return value.copy()
        except TypeError:
            pass
    return copy.deepcopy(value)


def width(value: Any) -> int | None:
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    return 1 if len(shape) == 1 else int(shape[1])
