"""Log the review's provenance to the active MLflow run: tags (latest), params (first time only), artifacts.

Recorded params and metrics are never changed: MLflow params are immutable, so a param that already exists is
left alone and the new value goes to a `trainguard.`-prefixed tag instead. No metric is ever logged.
"""

from __future__ import annotations

import sys
from typing import Any

from .model import AuditReport

TAG_LIMIT = 5000


def _clip(value: Any) -> str:
    text = str(value)
    return text if len(text) <= TAG_LIMIT else text[: TAG_LIMIT - 3] + "..."


def provenance_items(audit: AuditReport) -> tuple[dict[str, str], dict[str, str]]:
    """(tags, params) describing the audit's provenance."""
    prov = audit.provenance
    tags: dict[str, str] = {}
    params: dict[str, str] = {}
    git = prov.get("git") or {}
    if git.get("commit"):
        tags["trainguard.git_commit"] = git["commit"]
        tags["trainguard.git_dirty"] = str(bool(git.get("dirty"))).lower()
        params["trainguard.git_commit"] = git["commit"]
        if git.get("branch"):
            tags["trainguard.git_branch"] = git["branch"]
    if prov.get("notebook"):
        tags["trainguard.notebook"] = _clip(prov["notebook"])
    for name, info in sorted((prov.get("datasets") or {}).items()):
        if not info.get("sha256"):
            continue
        tags[f"trainguard.dataset.{name}.sha256"] = info["sha256"]
        tags[f"trainguard.dataset.{name}.shape"] = "x".join(str(d) for d in info.get("shape", []))
        if info.get("columns"):
            tags[f"trainguard.dataset.{name}.columns"] = _clip(",".join(info["columns"]))
        params[f"trainguard.dataset.{name}.sha256"] = info["sha256"]
    pkgs = prov.get("packages") or {}
    if pkgs:
        tags["trainguard.packages"] = _clip(", ".join(f"{k}=={v}" for k, v in sorted(pkgs.items())))
    counts = audit.counts()
    tags["trainguard.audit.findings"] = ", ".join(f"{n} {k}" for k, n in counts.items())
    if audit.next_action.get("rule_id"):
        tags["trainguard.audit.next_action"] = _clip(audit.next_action["rule_id"] + ": " + audit.next_action["fix"])
    return tags, params


def log_to_active_run(audit: AuditReport, markdown: str | None = None) -> dict[str, Any]:
    """Log to the active MLflow run if there is one (MLflow is only used when the session already imported it)."""
    if sys.modules.get("mlflow") is None:
        return {}
    import mlflow

    run = mlflow.active_run()
    if run is None:
        return {}
    run_id = run.info.run_id
    client = mlflow.MlflowClient()
    existing = client.get_run(run_id).data
    tags, params = provenance_items(audit)
    if "mlflow.source.git.commit" not in existing.tags and "trainguard.git_commit" in tags:
        tags["mlflow.source.git.commit"] = tags["trainguard.git_commit"]
    new_params: dict[str, str] = {}
    kept: list[str] = []
    for key, value in params.items():
        if key in existing.params:
            if existing.params[key] != value:
                kept.append(key)  # immutable: the latest value lives in the tag of the same name
            continue
        new_params[key] = value
    if new_params:
        mlflow.log_params(new_params)
    mlflow.set_tags(tags)
    mlflow.log_dict(audit.to_dict(), "trainguard/audit.json")
    if markdown is not None:
        mlflow.log_text(markdown, "trainguard/audit.md")
    return {"run_id": run_id, "tags": sorted(tags), "params": sorted(new_params), "params_kept": kept,
            "artifacts": ["trainguard/audit.json"] + (["trainguard/audit.md"] if markdown is not None else [])}
