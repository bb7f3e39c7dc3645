"""Run a Plan: clones of the model (and transformer) refitted with and without the leak, scored on the same rows.

When the refit draws randomness the original did not fix (an unseeded estimator, a carved validation split),
the pair (with the leak, without it) is refitted under 3 seeds, so that a difference smaller than the spread
between seeds is reported as "no measurable effect" rather than sold as leakage.
"""

from __future__ import annotations

import math
import numbers
import statistics
import time
from typing import Any

from .budget import Budget, OverBudget, nbytes
from .locate import NotMeasurable, Setup, duplicate, n_rows, take
from .metric import change_text, compute, fmt, lower_is_better
from .plans import Plan, evaluate_kwargs

SEEDS = (0, 1, 2)
PROBE_ROWS = 256
SAFETY = 1.3  # a fit may take longer than the slowest one so far (other configuration, a busy machine)


def unseeded_params(est: Any) -> list[str]:
    """Parameters named *random_state that hold None or a RandomState (fresh randomness at each fit)."""
    try:
        params = est.get_params(deep=True)
    except Exception:  # noqa: BLE001
        return []
    return [
        k
        for k, v in params.items()
        if k.split("__")[-1] == "random_state" and not (isinstance(v, numbers.Integral) and not isinstance(v, bool))
    ]


def cache_params(est: Any) -> list[str]:
    """Parameters named *memory that hold a cache (a folder or a joblib.Memory): a clone fitted with them would
    write into the user's cache folder."""
    try:
        params = est.get_params(deep=True)
    except Exception:  # noqa: BLE001
        return []
    return [k for k, v in params.items() if k.split("__")[-1] == "memory" and v is not None]


def _clone(est: Any, seed: int | None) -> Any:
    """A clone without caches (memory=None at any depth), seeded with `seed` where the original is unseeded."""
    from sklearn.base import clone

    c = clone(est)
    for _ in range(4):  # a cache inside a step appears once the outer one is replaced; nesting is shallow
        caches = cache_params(c)
        if not caches:
            break
        c.set_params(**{k: None for k in caches})
    if seed is not None:
        params = {k: seed for k in unseeded_params(c)}
        if params:
            c.set_params(**params)
    return c


def _carve(x: Any, y: Any, seed: int) -> tuple[Any, Any, Any, Any]:
    import numpy as np

    n = n_rows(x)
    order = np.random.default_rng(seed).permutation(n)  # a private generator: global RNGs untouched
    n_val = max(1, int(n * 0.2))
    val, tr = np.sort(order[:n_val]), np.sort(order[n_val:])
    return take(x, tr), take(y, tr), take(x, val), take(y, val)


def fit_score(s: Setup, plan: Plan, seed: int | None, honest: bool, base_kwargs: dict[str, Any]) -> float:
    """One refit of a clone on copies of the rows, scored with the reported metric."""
    model = _clone(s.model, seed)
    if not honest:
        kwargs = {**base_kwargs, **plan.leaky_kwargs}
        model.fit(duplicate(s.xa), duplicate(s.ya), **kwargs)
        return compute(s.score, model, duplicate(s.xe), duplicate(s.ye))
    fx, fy, ex = duplicate(plan.fit_x), duplicate(plan.fit_y), duplicate(plan.eval_x)
    kwargs = dict(base_kwargs)
    if plan.prep is not None:
        prep = _clone(plan.prep, seed)
        fx = prep.fit_transform(fx, fy)
        ex = prep.transform(ex)
    if plan.eval_keyword is not None:
        fx, fy, vx, vy = _carve(fx, fy, seed if seed is not None else 0)
        if plan.eval_shape.startswith("pair"):
            listed = plan.eval_shape.startswith("pair-list:")
            kwargs[plan.eval_keyword] = [vx] if listed else vx
            kwargs[plan.eval_shape.split(":", 1)[1]] = [vy] if listed else vy
        else:
            kwargs[plan.eval_keyword] = [(vx, vy)] if plan.eval_shape == "list" else (vx, vy)
    model.fit(fx, fy, **kwargs)
    return compute(s.score, model, ex, duplicate(plan.eval_y))


def _probe_seconds(s: Setup, plan: Plan, base_kwargs: dict[str, Any]) -> float:
    """A first guess for one refit: a clone fitted on PROBE_ROWS rows, scaled linearly to all of them."""
    n = n_rows(plan.fit_x)
    if n <= PROBE_ROWS or plan.eval_keyword is not None or plan.prep is not None or base_kwargs:
        return 0.0
    t0 = time.perf_counter()
    try:
        _clone(s.model, 0).fit(take(plan.fit_x, slice(0, PROBE_ROWS)), take(plan.fit_y, slice(0, PROBE_ROWS)))
    except Exception:  # noqa: BLE001 - too few classes in the probe rows, ...: no guess
        return 0.0
    return (time.perf_counter() - t0) * n / PROBE_ROWS


def measure_plan(s: Setup, plan: Plan, budget: Budget, ns: dict[str, Any]) -> dict[str, Any]:
    """Refit with and without the leak within the budget; the impact record (see render.summary)."""
    t0 = time.perf_counter()
    base_kwargs = {k: v for k, v in evaluate_kwargs(s.fit.kwargs, ns).items() if k not in plan.leaky_kwargs}
    if base_kwargs and plan.rows.get("dropped"):
        raise NotMeasurable(f"the fit call passes {', '.join(base_kwargs)}= aligned with rows that the refit drops")
    copies = 2 * sum(nbytes(v) for v in (plan.fit_x, plan.fit_y, plan.eval_x, s.xa, s.xe))
    if copies > budget.memory_bytes:
        from ..runtime.oom import fmt_bytes

        raise NotMeasurable(
            f"the copies would take about {fmt_bytes(copies)}, over the memory budget {fmt_bytes(budget.memory_bytes)} "
            "(--impact-memory SIZE)"
        )
    random = (
        bool(unseeded_params(s.model)) or plan.random or (plan.prep is not None and bool(unseeded_params(plan.prep)))
    )
    seeds: list[int | None] = list(SEEDS) if random else [None]
    guess = budget.cell_seconds if budget.cell_seconds is not None else _probe_seconds(s, plan, base_kwargs)
    honest: list[float] = []
    leaky: list[float] = []
    last = guess
    for i, seed in enumerate(seeds):
        if i == 2 and len(set(honest)) == 1 and len(set(leaky)) == 1 and len(leaky) == 2:
            break  # two seeds gave identical scores: the refit does not depend on the seed
        for is_honest, out in ((True, honest), (False, leaky)):
            if not budget.allows(SAFETY * last):
                break
            t = time.perf_counter()
            fresh = {k: v for k, v in evaluate_kwargs(s.fit.kwargs, ns).items() if k not in plan.leaky_kwargs}
            out.append(fit_score(s, plan, seed, is_honest, fresh))  # fresh callback objects for every fit
            last = max(last, time.perf_counter() - t)  # the slowest fit so far predicts the next
    if not honest:
        raise OverBudget(f"one refit is expected to take about {guess:.1f} s, over the {budget.seconds:.1f} s budget")
    return result(s, plan, seeds, honest, leaky, budget, time.perf_counter() - t0, fit_seconds=last)


def result(
    s: Setup,
    plan: Plan,
    seeds: list[int | None],
    honest: list[float],
    leaky: list[float],
    budget: Budget,
    seconds: float,
    fit_seconds: float | None = None,
) -> dict[str, Any]:
    sc = s.score
    reported = s.reported if s.reported is not None else _recomputed(s)
    h = statistics.fmean(honest)
    pairs = min(len(honest), len(leaky))
    randomised = seeds != [None]
    spread = None
    if randomised and pairs >= 2:
        spread = max(max(honest) - min(honest), max(leaky[:pairs]) - min(leaky[:pairs]))
    effect = statistics.fmean(leaky[i] - honest[i] for i in range(pairs)) if pairs else reported - h
    sign = -1 if lower_is_better(sc) else 1
    if randomised and spread is None:
        verdict = "undetermined"  # the budget allowed too few seeds to tell effect from noise
    elif abs(effect) <= (spread or 0.0) or abs(effect) <= 1e-12 * max(1.0, abs(h)):
        verdict = "no measurable effect"
    else:
        verdict = "inflated" if sign * effect > 0 else "deflated"
    rec: dict[str, Any] = {
        "status": "measured",
        "metric": s.metric,
        "metric_call": sc.code,
        "reported": reported,
        "reported_from": s.reported_from,
        "honest": h,
        "honest_scores": honest,
        "leaky_refit_scores": leaky,
        "delta": h - reported,
        "change": change_text(sc, reported, h),
        "effect": effect,
        "verdict": verdict,
        "seeds": [x for x in seeds[: len(honest)] if x is not None] if randomised else None,
        "spread": spread,
        "strategy": plan.label,
        "objects": list(dict.fromkeys(plan.objects)),
        "rows": plan.rows,
        "seconds": round(seconds, 3),
        "budget_s": round(budget.seconds, 3),
    }
    if verdict == "undetermined":
        rec["budget_for_3_seeds_s"] = seeds_budget(fit_seconds if fit_seconds else seconds / max(1, len(honest)))
    rec["summary"] = summary(rec, sc)
    return rec


def seeds_budget(fit_seconds: float) -> int:
    """The --impact-budget (whole seconds) that allows 3 seeds: 6 refits (with and without the leak, 3 seeds),
    each allowed SAFETY x the slowest fit seen: about 6x the fit time."""
    return max(1, math.ceil(len(SEEDS) * 2 * SAFETY * max(0.0, fit_seconds)))


def _recomputed(s: Setup) -> float:
    import copy

    return compute(s.score, copy.deepcopy(s.model), duplicate(s.xe), duplicate(s.ye))


def summary(rec: dict[str, Any], sc: Any) -> str:
    """'reported accuracy 0.943; refitted without the leak 0.912 (−3.1 points)' (+ the seed spread/verdict)."""
    text = (
        f"reported {rec['metric']} {fmt(rec['reported'])}; refitted without the leak {fmt(rec['honest'])} "
        f"({rec['change']}"
    )
    if rec["spread"]:
        n = len(rec["honest_scores"])
        spread = change_text(sc, 0.0, rec["spread"]).lstrip("+")
        text += f"; mean of {n} seeds, spread {spread}"
    text += ")"
    if rec["verdict"] == "no measurable effect":
        text += ": no measurable effect" + (" (within the seed spread)" if rec["spread"] else "")
    elif rec["verdict"] == "undetermined":
        text += ": the budget allowed one seed only, so noise is not separated from the leak"
        if rec.get("budget_for_3_seeds_s"):
            text += (
                f" (3 seeds need about {rec['budget_for_3_seeds_s']} s: --impact-budget {rec['budget_for_3_seeds_s']})"
            )
    return text
