"""SARIF 2.1.0 output, for GitHub code scanning."""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..findings import Location, Report
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


def _file_line(loc: Location) -> int | None:
    """The line in the file itself: text formats carry it; `.ipynb` lines are looked up in the JSON file."""
    if loc.file_line:
        return loc.file_line
    if loc.path.endswith(".ipynb"):
        from .ipynb_lines import ipynb_file_line

        return ipynb_file_line(loc.path, loc.cell, loc.line or 1) if loc.cell is not None else None
    return loc.line


def _cell_properties(loc: Location) -> dict:
    """Cell facts in the same scheme as the JSON output, plus the label every text uses."""
    props: dict = {}
    if loc.cell_text:
        props["cell"] = loc.cell_text
    for key, value in (("cellIndex", loc.cell), ("cellId", loc.cell_id), ("executionCount", loc.execution_count),
                       ("cellLine", loc.line)):
        if value is not None:
            props[key] = value
    return props


def render_sarif(reports: list[Report], base: Path | None = None, **_: object) -> str:
    base = base or Path.cwd()
    rules = all_rules()
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for rep in reports:
        for f in rep.sorted_findings():
            loc = f.location
            region: dict = {}
            line = _file_line(loc)
            if line:
                region["startLine"] = int(line)
                if loc.column and not loc.path.endswith(".ipynb"):  # a cell's column is not the JSON line's
                    region["startColumn"] = int(loc.column)
            physical: dict = {"artifactLocation": {"uri": _uri(loc.path, base)}}
            if region:
                physical["region"] = region
            result = {
                "ruleId": f.rule_id,
                "level": _LEVEL[f.severity.value],
                "message": {"text": (f"{loc.cell_text}: " if loc.cell_text else "")
                            + f"{f.message} Impact: {f.impact} Fix: {f.fix}".strip()},
                "locations": [{"physicalLocation": physical}],
                "properties": {"category": f.category, **_cell_properties(loc)},
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
