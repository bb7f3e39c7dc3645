"""PIPE004: notebook calls into the shared components that do not match the component's real signature."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .context import NotebookContext
from .registry import Hit, rule

if TYPE_CHECKING:
    from ..analysis.components import ComponentIndex


def component_index(ctx: NotebookContext) -> ComponentIndex | None:
    cfg = ctx.config
    if cfg.components_dir is None or not cfg.components_dir.is_dir():
        return None
    key = "component_index"
    if key not in ctx.cache:
        from ..analysis.components import index_components  # only a project with components reads them

        ctx.cache[key] = index_components(cfg.components_dir, cfg.package_name or "")
    return ctx.cache[key]


@rule(
    id="PIPE004", name="component-signature-mismatch", category="pipeline", severity="error",
    rationale="A call that does not bind to the component's signature fails at run time, often after set-up.",
    impact="The experiment crashes, or silently runs with a default instead of the intended setting.",
    fix="Call the component with the parameters its definition declares (or update the component).",
    bad="run_standard_experiment(component=COMPONENT, position=POSITIONS)  # parameter is 'positions'",
    good="run_standard_experiment(component=COMPONENT, positions=POSITIONS, dataset=DATASET, output_dir=OUT)",
)
def component_signature_mismatch(ctx: NotebookContext) -> Iterator[Hit]:
    """Reads the components' source (never imports it) and checks every call the notebook makes into them."""
    index = component_index(ctx)
    if index is None:
        return
    for cell, call, qualname in ctx.parsed.calls():
        if not qualname or "." not in qualname:
            continue
        resolved = index.resolve(qualname)
        if resolved is None:
            continue
        module, attr = resolved
        sig = module.functions.get(attr)
        if sig is None and attr in module.classes:
            sig = module.classes[attr]
            if sig is None:
                continue
        if sig is None:
            if module.error is None:
                yield Hit.at(cell, call, f"{module.name}.{attr} does not exist in the components "
                                         f"({module.path}).", evidence={"component": module.name, "name": attr})
            continue
        has_star = any(isinstance(a, ast.Starred) for a in call.args)
        has_dstar = any(k.arg is None for k in call.keywords)
        n_pos = sum(1 for a in call.args if not isinstance(a, ast.Starred))
        keywords = [k.arg for k in call.keywords if k.arg is not None]
        problems = sig.bind_problems(n_pos, keywords, has_star, has_dstar)
        if problems:
            yield Hit.at(cell, call, f"Call to {module.name}.{attr}() does not match its signature "
                                     f"{sig.describe()}: {'; '.join(problems)}.",
                         evidence={"component": module.name, "function": attr, "problems": problems,
                                   "defined_at": f"{sig.path}:{sig.line}"})
