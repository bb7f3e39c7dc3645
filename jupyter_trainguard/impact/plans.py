"""How to refit without each kind of leak: a Plan says which rows, columns and transformer the honest refit uses.

- overlap (a model fitted on rows it is scored on, duplicated rows, a Pipeline fitted on every row): drop the
  fit rows that are also evaluation rows;
- preprocessing (a transformer fitted on evaluation rows): refit a clone on the training rows only, found in a raw
  frame of the namespace whose transformed rows are the split parts;
- target (features derived from the label): refit without those columns;
- early stopping/selection on the test set (an eval_set=): carve a validation split out of the training rows.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..findings import Finding
from .budget import Budget
from .locate import NotMeasurable, Setup, n_rows, take, width

EVAL_KEYWORDS = ("eval_set", "validation_data", "valid_sets", "eval_dataset", "validation_set")
VALIDATION_SHARE = 0.2


class SameAs(Exception):
    """This finding is another view of a leak measured under another category (args[0])."""


@dataclass
class Plan:
    key: str  # plans with the same key are measured once
    label: str  # what the honest refit does, in words
    fit_x: Any
    fit_y: Any
    eval_x: Any
    eval_y: Any
    prep: Any = None  # an unfitted transformer fitted on fit_x, applied to fit_x and eval_x, before the model
    eval_keyword: str | None = None  # carve a validation split out of fit_x into this fit keyword
    eval_shape: str = "list"  # "list": [(X, y)]; "tuple": (X, y)
    leaky_kwargs: dict[str, Any] = field(default_factory=dict)  # the original fit keywords, evaluated
    rows: dict[str, int] = field(default_factory=dict)
    objects: list[str] = field(default_factory=list)

    @property
    def random(self) -> bool:
        """The honest refit draws randomness of its own (a carved validation split)."""
        return self.eval_keyword is not None


def fingerprints(value: Any) -> np.ndarray:
    """Row fingerprints of a live object, shared with the runtime checks (reused while the object is unchanged)."""
    from ..runtime.hashing import as_rows, cached_row_hashes

    return cached_row_hashes(value, as_rows(value))


def overlap_plan(s: Setup) -> Plan:
    from ..runtime.hashing import Unhashable

    try:
        in_eval = np.isin(fingerprints(s.xa), fingerprints(s.xe))
    except (Unhashable, TypeError, ValueError) as exc:
        raise NotMeasurable(
            f"the rows of {s.fit.x} and {s.score.x} cannot be compared ({type(exc).__name__})"
        ) from None
    dropped = int(in_eval.sum())
    if not dropped:
        raise NotMeasurable(
            f"no row of {s.score.x} is among the rows {s.model_name} was fitted on "
            f"({s.fit.x}), so there is nothing to remove"
        )
    keep = ~in_eval
    label = (
        f"{s.model_name} refitted on the {int(keep.sum())} rows of {s.fit.x} that are not in {s.score.x} "
        f"({dropped} dropped)"
    )
    return Plan(
        "overlap",
        label,
        take(s.xa, keep),
        take(s.ya, keep),
        s.xe,
        s.ye,
        rows={"fit": int(keep.sum()), "dropped": dropped, "eval": n_rows(s.xe)},
        objects=s.objects(),
    )


def _fitted_transformers(ns: dict[str, Any]) -> list[tuple[str, Any]]:
    out = []
    for name, value in list(ns.items()):
        if name.startswith("_") or not (type(value).__module__ or "").startswith("sklearn"):
            continue
        if hasattr(value, "transform") and hasattr(value, "n_features_in_") and not hasattr(value, "steps"):
            out.append((name, value))
    return out


def _raw_candidates(ns: dict[str, Any], n_features: int, at_least: int) -> list[tuple[str, Any]]:
    from ..runtime.splits import kind_of

    out = []
    for name, value in list(ns.items()):
        if name.startswith("_") or kind_of(value) not in ("frame", "array"):
            continue
        if width(value) == n_features and n_rows(value) >= at_least:
            out.append((name, value))
    return sorted(out, key=lambda kv: -n_rows(kv[1]))


def _positions(rows_hashes: np.ndarray, wanted: np.ndarray) -> np.ndarray | None:
    """Position in rows_hashes of each wanted hash (None when one is missing)."""
    order = np.argsort(rows_hashes, kind="stable")
    sorted_h = rows_hashes[order]
    pos = np.searchsorted(sorted_h, wanted)
    pos[pos == len(sorted_h)] = 0
    if not len(sorted_h) or not np.all(sorted_h[pos] == wanted):
        return None
    return order[pos]


def _fitted_on(tname: str, finding: Finding, sources: list[str]) -> list[str]:
    """The frames the executed code fitted transformer `tname` on (`tname.fit(X_raw)`, `.fit_transform(X_raw)`),
    the finding's own `fitted_on` first, the latest call before earlier ones."""
    import re

    named = [str(finding.evidence["fitted_on"])] if finding.evidence.get("fitted_on") else []
    pattern = re.compile(rf"\b{re.escape(tname)}\s*\.\s*fit(?:_transform)?\s*\(\s*([A-Za-z_]\w*)")
    for src in reversed(sources):
        named += list(reversed(pattern.findall(src)))
    return list(dict.fromkeys(named))


def preprocessing_plan(
    s: Setup, ns: dict[str, Any], finding: Finding, budget: Budget | None = None, sources: list[str] | None = None
) -> Plan:
    """A clone of the transformer refitted on the training rows of the raw frame behind the split parts. The raw
    frame is searched for within the budget: first the frame the executed code fitted the transformer on, then the
    other frames of the namespace with its width, largest first."""
    if hasattr(s.model, "steps") or hasattr(s.model, "transformers"):
        return overlap_plan(s)  # a Pipeline fitted on the evaluation rows: refit it without them
    import time

    from ..runtime.hashing import Unhashable

    n_fit = n_rows(s.xa)
    named = str(finding.evidence.get("transformer") or "")
    candidates = [
        (n, t)
        for n, t in _fitted_transformers(ns)
        if t.n_features_in_ == width(s.xa) and int(np.max(getattr(t, "n_samples_seen_", n_fit + 1))) > n_fit
    ]
    candidates.sort(key=lambda nt: nt[0] != named)
    if not candidates:
        raise NotMeasurable(f"no fitted transformer in the namespace matches the columns of {s.fit.x}")
    try:
        ha, he = fingerprints(s.xa), fingerprints(s.xe)
    except (Unhashable, TypeError, ValueError) as exc:
        raise NotMeasurable(f"the rows of {s.fit.x} cannot be hashed ({type(exc).__name__})") from None
    pairs = []
    for tname, t in candidates:
        hints = _fitted_on(tname, finding, sources or [])
        raws = [kv for kv in _raw_candidates(ns, t.n_features_in_, n_fit) if kv[0] not in (s.fit.x, s.score.x)]
        raws.sort(key=lambda kv: hints.index(kv[0]) if kv[0] in hints else len(hints))  # stable: size order kept
        pairs += [(tname, t, rname, raw) for rname, raw in raws]
    slowest = 0.0
    for tried, (tname, t, rname, raw) in enumerate(pairs):
        if budget is not None and not budget.allows(slowest):
            raise NotMeasurable(
                f"the budget was spent on finding the raw rows behind {s.fit.x} and {s.score.x} ({tried} of "
                f"{len(pairs)} candidate frames tried in {budget.elapsed():.1f} s of a {budget.seconds:.1f} s "
                "budget; --impact-budget gives it more time)"
            )
        t0 = time.perf_counter()
        try:
            transformed = t.transform(raw.copy())
            hr = fingerprints(transformed)
        except Exception:  # noqa: BLE001 - a frame this transformer cannot read
            continue
        finally:
            slowest = max(slowest, time.perf_counter() - t0)
        pa, pe = _positions(hr, ha), _positions(hr, he)
        if pa is None or pe is None:
            continue
        from sklearn.base import clone

        label = (
            f"{tname} ({type(t).__name__}) refitted on the {len(pa)} training rows of {rname} only, "
            f"{s.model_name} refitted on its output"
        )
        return Plan(
            f"prep:{tname}:{rname}",
            label,
            take(raw, pa),
            s.ya,
            take(raw, pe),
            s.ye,
            prep=clone(t),
            rows={
                "fit": len(pa),
                "eval": len(pe),
                "transformer_saw": int(np.max(getattr(t, "n_samples_seen_", 0))),
            },
            objects=[tname, rname, *s.objects()],
        )
    raise NotMeasurable(
        f"the raw rows behind {s.fit.x} and {s.score.x} were not found in the namespace (no frame "
        "whose transformed rows are exactly theirs)"
    )


def _columns(finding: Finding) -> list[str]:
    ev = finding.evidence
    cols = ev.get("columns") or ([ev["column"]] if ev.get("column") else [])
    return [str(c) for c in cols]


def target_plan(s: Setup, finding: Finding) -> Plan:
    cols = _columns(finding)
    if not cols:
        raise NotMeasurable("the finding does not name the leaking columns")
    if hasattr(s.xa, "columns"):
        missing = [c for c in cols if c not in s.xa.columns or c not in getattr(s.xe, "columns", [])]
        if missing:
            raise NotMeasurable(f"{s.fit.x} or {s.score.x} has no column {missing[0]!r}")
        fx, ex = s.xa.drop(columns=cols), s.xe.drop(columns=cols)
    elif all(c.startswith("column ") and c[7:].isdigit() for c in cols):
        idx = [int(c[7:]) for c in cols]
        fx, ex = np.delete(np.asarray(s.xa), idx, axis=1), np.delete(np.asarray(s.xe), idx, axis=1)
    else:
        raise NotMeasurable(f"{s.fit.x} has no named columns to drop")
    label = f"{s.model_name} refitted without {', '.join(cols)} (computed from the label)"
    return Plan(
        "target:" + ",".join(sorted(cols)),
        label,
        fx,
        s.ya,
        ex,
        s.ye,
        rows={"fit": n_rows(fx), "eval": n_rows(ex), "columns_dropped": len(cols)},
        objects=s.objects(),
    )


_SAFE_NODES = (
    ast.Expression,
    ast.Name,
    ast.Load,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Constant,
    ast.Subscript,
    ast.Slice,
    ast.Attribute,
    ast.keyword,
    ast.Call,
    ast.UnaryOp,
    ast.USub,
)
CALLABLE_MODULES = ("lightgbm", "xgboost", "catboost", "sklearn", "numpy")  # callbacks, configs, weights


def _callable_ok(func: ast.expr, ns: dict[str, Any]) -> bool:
    """A call is evaluated only when its callee is a plain name/attribute of an ML library (a callback factory)."""
    if not all(isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for n in ast.walk(func)):
        return False
    try:
        target = eval(compile(ast.Expression(func), "<impact>", "eval"), {"__builtins__": {}}, ns)
    except Exception:  # noqa: BLE001
        return False
    return (getattr(target, "__module__", None) or "").split(".")[0] in CALLABLE_MODULES


def _library_object(value: Any) -> bool:
    """A module, or a class/function an ML library defines (a callback factory): used, never copied."""
    import types

    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] in CALLABLE_MODULES
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return (getattr(value, "__module__", None) or "").split(".")[0] in CALLABLE_MODULES
    return False


def _user_callable(value: Any, depth: int = 0) -> str | None:
    """What in a (copied) keyword value would run the notebook's own code or write into its objects: a function
    or method of the notebook, an object of a notebook class that is called, a library closure (deepcopy keeps
    closures shared). None when there is none."""
    import types

    if depth > 3:
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        return next((w for v in value if (w := _user_callable(v, depth + 1))), None)
    if isinstance(value, dict):
        return next((w for v in value.values() if (w := _user_callable(v, depth + 1))), None)
    module = (getattr(value, "__module__", None) or "").split(".")[0]
    if isinstance(value, (types.FunctionType, types.MethodType, functools.partial)):
        if module not in CALLABLE_MODULES:
            return "a function of the notebook"
        if getattr(value, "__closure__", None) or isinstance(value, types.MethodType):
            return f"a {module} callback that keeps references to the notebook's objects"
        return None
    if (
        callable(value)
        and not isinstance(value, type)
        and (type(value).__module__ or "").split(".")[0]
        not in (
            *CALLABLE_MODULES,
            "builtins",
        )
    ):
        return f"a {type(value).__name__} object of the notebook that is called during the fit"
    return None


def evaluate_kwargs(kwargs: dict[str, ast.expr], ns: dict[str, Any]) -> dict[str, Any]:
    """The fit keywords' values: names, literals, containers and calls of ML-library factories (callbacks) only;
    anything else would have to run user code, and is refused. Every value taken from the namespace is a deep
    copy (a callback filling a dict of the notebook fills a copy); a keyword holding a function or callable object
    of the notebook is refused, since a refit would run it."""
    import copy

    out = {}
    for key, expr in kwargs.items():
        tree = ast.Expression(expr)
        nodes = list(ast.walk(tree))
        if not all(isinstance(n, _SAFE_NODES) for n in nodes) or not all(
            _callable_ok(n.func, ns) for n in nodes if isinstance(n, ast.Call)
        ):
            raise NotMeasurable(f"the fit keyword {key}= is not a plain expression (it would have to be run)")
        local: dict[str, Any] = {}
        for name in dict.fromkeys(n.id for n in nodes if isinstance(n, ast.Name)):
            if name not in ns:
                continue
            value = ns[name]
            if _library_object(value):
                local[name] = value
                continue
            problem = _user_callable(value)
            if problem:
                raise NotMeasurable(f"the fit keyword {key}= holds {name}, {problem} (a refit would run it)")
            try:
                local[name] = copy.deepcopy(value)
            except Exception as exc:  # noqa: BLE001 - locks, open files, generators, ...
                raise NotMeasurable(
                    f"the fit keyword {key}= holds {name}, which cannot be copied ({type(exc).__name__}); a refit "
                    "would change the notebook's object"
                ) from None
        value = eval(compile(ast.fix_missing_locations(tree), "<impact>", "eval"), {"__builtins__": {}}, local)
        problem = _user_callable(value)
        if problem:
            raise NotMeasurable(f"the fit keyword {key}= holds {problem} (a refit would run it)")
        out[key] = value
    return out


EVAL_PAIRS = (("eval_X", "eval_y"), ("X_val", "y_val"))


def eval_set_plan(s: Setup, ns: dict[str, Any]) -> Plan:
    keys = [k for k in s.fit.kwargs if k in EVAL_KEYWORDS]
    pairs = [(x, y) for x, y in EVAL_PAIRS if x in s.fit.kwargs and y in s.fit.kwargs]
    if not keys and not pairs:
        raise NotMeasurable(
            "the test set chose among models or was scored repeatedly; a refit of one model cannot undo a "
            "choice (no eval_set=/validation_data= to replace)"
        )
    kwargs = evaluate_kwargs(s.fit.kwargs, ns)
    if keys:
        key, shape = keys[0], "tuple" if isinstance(kwargs[keys[0]], tuple) else "list"
        leaky = {key: kwargs[key]}
    else:
        key, ykey = pairs[0]
        shape = ("pair-list:" if isinstance(kwargs[key], (list, tuple)) else "pair:") + ykey
        leaky = {key: kwargs[key], ykey: kwargs[ykey]}
    label = (
        f"{s.model_name} refitted with {key}= a {VALIDATION_SHARE:.0%} validation split carved out of "
        f"{s.fit.x} instead of the test rows"
    )
    n = n_rows(s.xa)
    n_val = int(n * VALIDATION_SHARE)
    return Plan(
        f"eval:{key}",
        label,
        s.xa,
        s.ya,
        s.xe,
        s.ye,
        eval_keyword=key,
        eval_shape=shape,
        leaky_kwargs=leaky,
        rows={"fit": n - n_val, "validation": n_val, "eval": n_rows(s.xe)},
        objects=s.objects(),
    )


def plan_for(
    finding: Finding, s: Setup, ns: dict[str, Any], budget: Budget | None = None, sources: list[str] | None = None
) -> Plan:
    """The honest-refit plan for one leak finding; NotMeasurable when this kind of leak cannot be refitted."""
    cat = finding.category
    if cat == "leakage.overlap":
        return overlap_plan(s)
    if cat == "leakage.target":
        return target_plan(s, finding)
    if cat == "leakage.preprocessing":
        if finding.evidence.get("kind") == "statistic":
            raise SameAs("leakage.target")
        if finding.evidence.get("kind") == "resampler":
            return overlap_plan(s)  # an oversampler before the split: the refit without its copies (measured once)
        return preprocessing_plan(s, ns, finding, budget, sources)
    if cat == "leakage.multi-test":
        return eval_set_plan(s, ns)
    raise NotMeasurable(f"no refit is defined for {cat} findings")
