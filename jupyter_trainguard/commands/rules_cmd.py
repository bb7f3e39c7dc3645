"""`trainguard rules` lists the rules; `trainguard explain ID` documents one."""

from __future__ import annotations

import argparse
import json

from ..rules.registry import all_rules

NAME = "rules"
HELP = "list every rule with its id, severity, category and rationale"
ORDER = 30


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["text", "json", "markdown"], default="text")


def run(args: argparse.Namespace) -> int:
    rules = all_rules()
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in rules], indent=2))
    elif args.format == "markdown":
        print("| id | name | severity | category | rationale |\n|---|---|---|---|---|")
        for r in rules:
            print(f"| {r.id} | {r.name} | {r.severity.value} | {r.category} | {r.rationale} |")
    else:
        width = max(len(r.name) for r in rules)
        for r in rules:
            print(f"{r.id:9} {r.name:{width}}  {r.severity.value:7}  {r.category:28} {r.rationale}")
    return 0
