"""`trainguard explain ID`: the documentation of one rule."""

from __future__ import annotations

import argparse
import sys
import textwrap

from ..rules.registry import get_rule

NAME = "explain"
HELP = "explain one rule: rationale, impact, fix and a bad/good example"
ORDER = 31


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule_id", metavar="ID")


def explain_text(rule_id: str) -> str:
    r = get_rule(rule_id)
    out = [f"{r.id} {r.name} ({r.severity.value}, {r.category}, {r.scope})", "",
           f"Why: {r.rationale}", f"Impact on metric honesty: {r.impact}", f"Fix: {r.fix}"]
    if r.fix_safety:
        out.append(f"Automatic fix: {r.fix_safety} (trainguard fix{' --unsafe' if r.fix_safety == 'unsafe' else ''})")
    if r.docs:
        out += ["", textwrap.dedent(r.docs)]
    if r.bad:
        out += ["", "Example (bad):", textwrap.indent(r.bad, "    ")]
    if r.good:
        out += ["", "Use instead:", textwrap.indent(r.good, "    ")]
    out += ["", f"Silence one finding: add '# trainguard: ignore[{r.id}]' to the line or at the top of the cell."]
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    try:
        print(explain_text(args.rule_id))
    except KeyError as exc:
        print(f"trainguard: {exc.args[0]}; see 'trainguard rules'", file=sys.stderr)
        return 2
    return 0
