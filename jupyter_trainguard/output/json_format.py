"""JSON output following `schema/report.schema.json`."""

from __future__ import annotations

import json

from .. import __version__
from ..findings import SCHEMA_VERSION, Report


def render_json(reports: list[Report], **_: object) -> str:
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "trainguard", "version": __version__},
        "reports": [r.to_dict() for r in reports],
        "summary": {
            "notebooks": len(reports),
            "errors": sum(r.counts()["error"] for r in reports),
            "warnings": sum(r.counts()["warning"] for r in reports),
            "infos": sum(r.counts()["info"] for r in reports),
            "suppressed": sum(len(r.suppressed) for r in reports),
        },
    }
    return json.dumps(doc, indent=2, default=str)
