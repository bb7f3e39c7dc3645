"""TRACK002 (unsafe): `mlflow.start_run()` ... `mlflow.end_run()` (or `wandb.init()` ... `finish()`) in one cell
becomes a `with` block, so a failing cell closes the run as FAILED instead of leaving it RUNNING. Unsafe because
the statements in between are re-indented and the run now ends with the block."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..context import FixContext, View
from ..model import UNSAFE
from ..registry import fixer
from ..work import TextEdit
from ._cst import Target, fix_each

STARTS = {"mlflow.start_run": ("mlflow.end_run",), "wandb.init": ("wandb.finish",)}


def _start(ctx: FixContext, stmt: Any) -> tuple[Any, str | None, str] | None:
    """(call, bound name, qualname) when `stmt` is a top-level `[name =] mlflow.start_run(...)`."""
    import libcst as cst

    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    name = None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        name, value = small.targets[0].target.value, small.value
    elif isinstance(small, cst.Expr):
        value = small.value
    else:
        return None
    if isinstance(value, cst.Call):
        q = ctx.qualname(value.func)
        if q in STARTS:
            return value, name, q
    return None


def _is_end(ctx: FixContext, stmt: Any, start_q: str, run_name: str | None) -> bool:
    import libcst as cst

    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or \
            not isinstance(stmt.body[0], cst.Expr) or not isinstance(stmt.body[0].value, cst.Call):
        return False
    func = stmt.body[0].value.func
    if ctx.qualname(func) in STARTS[start_q]:
        return True
    return run_name is not None and isinstance(func, cst.Attribute) and func.attr.value in ("finish", "end") and \
        isinstance(func.value, cst.Name) and func.value.value == run_name


def _targets(ctx: FixContext) -> Iterator[Target]:
    for v, stmt in ctx.top_statements():
        found = _start(ctx, stmt)
        if found and ctx.allowed("TRACK002", v, v.parsed.span(stmt)[0], v.parsed.span(stmt)[2]):
            yield Target(v, stmt, found[2])


def _indent_unit(ctx: FixContext) -> str:
    for v in ctx.views():
        for line in v.parsed.source.split("\n"):
            if line[:1] in (" ", "\t") and line.strip():
                return line[: len(line) - len(line.lstrip())]
    return "    "


def _multiline_strings(view: View, first: int, last: int) -> bool:
    import libcst as cst

    for node, r in view.parsed.positions.items():
        if isinstance(node, (cst.SimpleString, cst.FormattedString)) and r.start.line != r.end.line and \
                first <= r.start.line <= last:
            return True
    return False


@fixer(id="tracking-context-manager", rules="TRACK002", safety=UNSAFE, category="tracking", order=70,
       description="Turn `start_run()` ... `end_run()` in one cell into `with mlflow.start_run() as run:` "
                   "(W&B: `with wandb.init() as run:`), so failures close the run.")
def tracking_with(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        v, stmt = t.view, t.node
        call, name, q = _start(ctx, stmt)
        body = list(v.parsed.module.body)
        i = body.index(stmt)
        j = next((k for k in range(i + 1, len(body)) if _is_end(ctx, body[k], q, name)), None)
        if j is None:
            ctx.leave("TRACK002", v, t.line, "the run is not ended in the same cell, so it cannot be wrapped in "
                                             "one `with` block; end it in a `finally:` or run the training "
                                             "under %%guarded_train.")
            return False
        if j == i + 1:
            ctx.leave("TRACK002", v, t.line, "nothing runs between starting and ending the run.")
            return False
        p = v.parsed
        first_body = p.span(stmt)[2] + 1
        last_body = p.span(body[j])[0] - 1
        if _multiline_strings(v, first_body, last_body):
            ctx.leave("TRACK002", v, t.line, "the statements to indent contain a multi-line string, whose text "
                                             "would change; wrap them in `with` by hand.")
            return False
        unit = _indent_unit(ctx)
        lines = p.source.split("\n")
        head = f"with {p.text(call)}" + (f" as {name}:" if name else ":")
        new = [head] + [(unit + ln) if ln.strip() else ln for ln in lines[first_body - 1: last_body]]
        while len(new) > 1 and not new[-1].strip():
            new.pop()
        end_stmt_last = p.span(body[j])[2]
        sl = p.span(stmt)[0]
        edit = TextEdit(sl, 0, end_stmt_last, len(lines[end_stmt_last - 1]), "\n".join(new))
        ender = "end_run()" if q.startswith("mlflow") else "finish()"
        return ctx.edit(v, [edit], summary=f"{q.split('.')[0]} run closed by a with block",
                        detail=f"the run was started with {q}() and ended with {ender} in the same cell, so an "
                               f"exception in between leaves it open (RUNNING) in the kernel; the statements now "
                               f"run inside `{head}`, which ends the run as FAILED on error and FINISHED "
                               "otherwise.", line=sl)

    fix_each(ctx, _targets, fix)
