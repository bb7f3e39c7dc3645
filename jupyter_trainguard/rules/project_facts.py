"""Facts about a whole project (no lockfile) are said once per project in a scan of several notebooks."""

from __future__ import annotations

from pathlib import Path

from ..findings import Finding, Report
from .registry import _RULES

MAX_LISTED = 5


def once_per_project(reports: list[Report]) -> None:
    """Keep, for each rule marked `once_per_project` and each project (`evidence["project"]`), the finding of
    the first notebook; the others are folded into it (`evidence["notebooks"]` and a note in the message)."""
    first: dict[tuple[str, str], tuple[Finding, list[str]]] = {}
    for rep in reports:
        kept = []
        for f in rep.findings:
            project = f.evidence.get("project")
            if not isinstance(project, str) or not _per_project(f.rule_id):
                kept.append(f)
                continue
            head = first.get((f.rule_id, project))
            if head is None:
                first[(f.rule_id, project)] = (f, [rep.path])
                kept.append(f)
            else:
                head[1].append(rep.path)
        rep.findings = kept
    for f, paths in first.values():
        f.evidence["notebooks"] = paths
        others = paths[1:]
        if others:
            names = ", ".join(f"`{Path(p).name}`" for p in others[:MAX_LISTED])
            more = f" and {len(others) - MAX_LISTED} more" if len(others) > MAX_LISTED else ""
            f.message += f" The same holds for {len(others)} other notebook(s) of this project: {names}{more}."


def _per_project(rule_id: str) -> bool:
    r = _RULES.get(rule_id)  # registered already: it produced the finding (no catalogue import needed)
    return bool(r and r.once_per_project)
