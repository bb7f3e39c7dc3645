"""Measure what each leak finding did to the reported metric and attach it to the finding (evidence["impact"])."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from ..findings import Finding
from .budget import Budget, OverBudget, autolog_blocker, isolated
from .locate import NotMeasurable, Setup, candidates, choose, setup_for
from .plans import Plan, SameAs, plan_for
from .scene import read_scene

LEAK_PREFIX = "leakage."


def is_leak(f: Finding) -> bool:
    return f.category.startswith(LEAK_PREFIX)


def not_measured(reason: str, **extra: Any) -> dict[str, Any]:
    return {"status": "not measured", "reason": reason, "summary": f"not measured: {reason}", **extra}


def measure_findings(
    findings: Iterable[Finding], user_ns: dict[str, Any], sources: list[str], budget: Budget
) -> list[dict[str, Any]]:
    """Attach an impact record to every leak finding; returns the distinct records.

    `sources` are the executed cells as Python (magics transformed). The user's objects and namespace are only
    read; the refits use clones and copies, with the global RNG states restored and MLflow autologging off."""
    leaks = [f for f in findings if is_leak(f)]
    if not leaks:
        return []
    blocked = autolog_blocker()
    if blocked:
        return _attach_all(leaks, not_measured(blocked))
    records: dict[str, dict[str, Any]] = {}
    setups: dict[int, Setup | str] = {}
    leaks.sort(key=lambda f: f.category != "leakage.target")  # measured first: a pandas statistic reuses it
    with isolated():
        try:
            pairs = candidates(read_scene(sources), user_ns)
        except NotMeasurable as exc:
            return _attach_all(leaks, not_measured(str(exc)))
        except Exception as exc:  # noqa: BLE001 - odd objects: say so, never fail the user's cell
            return _attach_all(leaks, not_measured(f"the executed code could not be read ({type(exc).__name__})"))
        for f in leaks:
            try:
                pair = choose(pairs, f.evidence, f.category)
                index = pairs.index(pair)
                if index not in setups:
                    try:
                        setups[index] = setup_for(pair, user_ns)
                    except NotMeasurable as exc:
                        setups[index] = str(exc)
                setup = setups[index]
                if isinstance(setup, str):
                    raise NotMeasurable(setup)
            except NotMeasurable as exc:
                f.evidence["impact"] = not_measured(str(exc))
                continue
            except Exception as exc:  # noqa: BLE001
                f.evidence["impact"] = not_measured(f"the objects could not be read ({type(exc).__name__})")
                continue
            f.evidence["impact"] = _measure_one(f, setup, user_ns, budget, records, index, sources)
    return list({id(r): r for f in leaks for r in [f.evidence["impact"]]}.values())


def _measure_one(
    f: Finding,
    setup: Setup,
    ns: dict[str, Any],
    budget: Budget,
    records: dict[str, dict[str, Any]],
    index: int,
    sources: list[str] | None = None,
) -> dict[str, Any]:
    try:
        plan: Plan = plan_for(f, setup, ns, budget, sources)
    except SameAs:
        same = [r for k, r in records.items() if k.startswith(f"{index}:target:") and r.get("status") == "measured"]
        return (
            same[0]
            if same
            else not_measured(
                "a statistic computed with pandas is not a refittable transformer, and no feature computed from the "
                "label was measured"
            )
        )
    except NotMeasurable as exc:
        return not_measured(str(exc))
    except Exception as exc:  # noqa: BLE001
        return not_measured(
            f"the refit could not be prepared ({type(exc).__name__}; message omitted: it can quote data)"
        )
    key = f"{index}:{plan.key}"
    if key in records:
        return records[key]
    from .refit import measure_plan

    t0 = time.perf_counter()
    try:
        rec = measure_plan(setup, plan, budget, ns)
    except OverBudget as exc:
        rec = not_measured(f"over the time budget ({exc})", budget_s=round(budget.seconds, 3))
    except NotMeasurable as exc:
        rec = not_measured(str(exc))
    except Exception as exc:  # noqa: BLE001 - a refit that fails is reported, never raised
        rec = not_measured(
            f"the refit failed ({type(exc).__name__}; message omitted: it can quote data)",
            seconds=round(time.perf_counter() - t0, 3),
        )
    records[key] = rec
    return rec


def _attach_all(leaks: list[Finding], rec: dict[str, Any]) -> list[dict[str, Any]]:
    for f in leaks:
        f.evidence["impact"] = rec
    return [rec]
