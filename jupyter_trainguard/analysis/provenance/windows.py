"""Windows a notebook function cuts between bounds it is given: `def windows(series, start, end, size)` whose
loop `for i in range(start, end)` appends `series[i - size:i]` returns the windows of the rows from `start` to
`end`, so two calls with other bounds (`windows(x, 0, n_train, 20)`, `windows(x, n_train, None, 20)`) return two
periods, not the same rows twice."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .astutil import call_leaf, text
from .values import Val

_MEMO: dict[int, tuple] = {}


def window_bounds(fn: ast.FunctionDef, params: list[str]) -> tuple[frozenset, frozenset] | None:
    """The parameters the lower and upper bound of the function's windowing loop read, when its body has a loop
    `for i in range(a, b)` that appends rows indexed by `i` (`out.append(x[i - k:i])`, `x[idx]` with `idx` made
    from `i`) and a bound reads a parameter; else None. Memoised on the (read-only) node."""
    hit = _MEMO.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    found = None
    for loop in _loops(fn.body):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and call_leaf(loop.iter) == "range" and len(loop.iter.args) >= 2):
            continue
        names = [frozenset(n.id for n in ast.walk(b) if isinstance(n, ast.Name)) & set(params)
                 for b in loop.iter.args[:2]]
        if any(names) and _appends_indexed(loop, loop.target.id):
            found = (names[0], names[1])
            break
    if len(_MEMO) > 4096:
        _MEMO.clear()
    _MEMO[id(fn)] = (fn, found)
    return found


def _loops(body: list) -> list:
    """The `for` statements of a body, nested ones included (statements only: no expression is walked)."""
    out, todo, i = [], list(body), 0
    while i < len(todo):
        st, i = todo[i], i + 1
        if isinstance(st, ast.For):
            out.append(st)
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(st, field, ()) or ())
    return out


def _appends_indexed(loop: ast.For, counter: str) -> bool:
    """The loop appends something subscripted by a position made from its counter (a slice, a computed index or a
    name bound from the counter in the loop; never a column name such as `df[f'lag{i}']`)."""
    derived = {counter} | {t.id for st in ast.walk(loop) if isinstance(st, ast.Assign)
                           and any(isinstance(n, ast.Name) and n.id == counter for n in ast.walk(st.value))
                           for t in st.targets if isinstance(t, ast.Name)}
    for call in ast.walk(loop):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"):
            continue
        for sub in (n for a in call.args for n in ast.walk(a) if isinstance(n, ast.Subscript)):
            if isinstance(sub.slice, (ast.JoinedStr, ast.Constant)):
                continue
            if any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(sub.slice)):
                return True
    return False


def cut_windows(out: Val, bounds: tuple[frozenset, frozenset], given: dict, select: Callable,
                e: ast.Call) -> Val:
    """The rows the call's windows hold: a positional cut keyed by the arguments this call gives the bounds."""
    key = ("pos", *(",".join(text(given[p]) if p in given else p for p in sorted(names)) for names in bounds))

    def cut(v: Val | None) -> Val | None:
        return select(v, key, "mid", "slice", e) if v is not None and v.is_data and v.rows else v

    if out.kind == "seq" and out.items is not None:
        return out._replace(items=tuple(cut(i) for i in out.items))
    return cut(out)
