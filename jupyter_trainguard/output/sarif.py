"""SARIF 2.1.0 output, for GitHub code scanning."""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..findings import Report
from ..rules.registry import all_rules

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str, base: Path | None) -> str:
    p = Path(path)
    if base is not None:
        try:
            return p.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
    return p.as_posix()


def render_sarif(reports: list[Report], base: Path | None = None, **_: object) -> str:
    base = base or Path.cwd()
    rules = all_rules()
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for rep in reports:
        for f in rep.sorted_findings():
            loc = f.location
            region: dict = {}
            line = loc.file_line or loc.line
            if line:
                region["startLine"] = int(line)
                if loc.column:
                    region["startColumn"] = int(loc.column)
            physical: dict = {"artifactLocation": {"uri": _uri(loc.path, base)}}
            if region:
                physical["region"] = region
            result = {
                "ruleId": f.rule_id,
                "level": _LEVEL[f.severity.value],
                "message": {"text": f"{f.message} Impact: {f.impact} Fix: {f.fix}".strip()},
                "locations": [{"physicalLocation": physical}],
                "properties": {"category": f.category, "cell": loc.cell, "cellLine": loc.line},
            }
            if f.rule_id in index:
                result["ruleIndex"] = index[f.rule_id]
            results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "trainguard", "version": __version__, "informationUri": "https://pypi.org/project/jupyter-trainguard/",
                "rules": [{
                    "id": r.id, "name": r.name,
                    "shortDescription": {"text": r.rationale},
                    "fullDescription": {"text": f"{r.rationale} Impact: {r.impact}"},
                    "help": {"text": f"Fix: {r.fix}"},
                    "defaultConfiguration": {"level": _LEVEL[r.severity.value]},
                    "properties": {"category": r.category, "tags": [r.category]},
                } for r in rules],
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return json.dumps(doc, indent=2)
