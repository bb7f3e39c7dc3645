"""`%tg_estimate model=net batch=xb [target=yb] [optimizer=adam] [loss=crit] [amp=bf16] [device=cuda]
[--budget 24GiB]`: peak memory of one training step, estimated before training and without a GPU."""

from __future__ import annotations

import shlex

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from ..estimate import ESTIMATE_MIME, estimate_for_cell, parse_size


def parse_line(line: str) -> tuple[str | None, int | None]:
    """(spec for `estimate_for_cell` or None, budget bytes or None) from the magic's arguments."""
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"%tg_estimate: {exc}") from exc
    items, budget = [], None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("--budget", "--memory-budget"):
            if i + 1 >= len(tokens):
                raise UsageError("%tg_estimate: --budget needs a size such as 24GiB")
            token, i = f"--budget={tokens[i + 1]}", i + 1
        if token.startswith(("--budget=", "--memory-budget=")):
            try:
                budget = parse_size(token.split("=", 1)[1])
            except ValueError as exc:
                raise UsageError(f"%tg_estimate: {exc}") from exc
        elif token.startswith("-"):
            raise UsageError(f"%tg_estimate: unknown option {token!r} (usage: %tg_estimate model=NAME batch=NAME "
                             "[target=NAME] [optimizer=adam|NAME] [loss=NAME] [amp=bf16] [device=cuda|cpu] "
                             "[--budget 24GiB])")
        elif "=" not in token:
            raise UsageError(f"%tg_estimate: expected key=value, got {token!r}")
        else:
            items.append(token.rstrip(","))
        i += 1
    return (",".join(items) or None), budget


@magics_class
class EstimateMagics(Magics):
    """The `%tg_estimate` line magic."""

    last_result = None

    @line_magic
    def tg_estimate(self, line: str = "") -> None:
        """Estimate the peak GPU memory of one training step (weights, gradients, optimizer state, activations,
        allocator and CUDA allowances) on fake tensors: nothing is allocated and no GPU is needed.

        Usage: %tg_estimate model=net batch=xb [target=yb] [optimizer=adam|opt] [loss=criterion] [amp=bf16]
        [device=cuda|cpu] [--budget 24GiB]. Without arguments the model, batch and optimizer are looked up in the
        notebook namespace."""
        from ..display.bundle import publish
        from ..estimate.render import render_html

        spec, budget = parse_line(line)
        result = estimate_for_cell(self.shell.user_ns, "", spec, budget=budget)
        self.last_result = result
        publish(result.summary(), render_html(result), result.to_dict(), ESTIMATE_MIME, shell=self.shell)
