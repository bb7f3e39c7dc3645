"""`--config NAME`: validate a live dict (or the UPPER_CASE constants) against `[tool.trainguard.constants]`.

The value check is the one the static CFG001 rule uses (`analysis.constants.check_constant`), so a constant is
judged the same way whether it is read from code or from the running kernel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import Config, ConstantSpec
from ..findings import Finding, Location, Severity


def check_value(spec: ConstantSpec, value: Any, config: Config, stem: str | None = None) -> str | None:
    """The problem with `value` for `spec`, or None when it is allowed (`stem`: the notebook's file name)."""
    try:
        from ..analysis.constants import check_constant
    except ImportError:  # pragma: no cover - the static module ships with the package
        check_constant = None
    if check_constant is not None:
        return check_constant(spec, value, config, stem=stem)
    if spec.choices is not None and value not in spec.choices:
        return f"{spec.name} = {value!r} is not {spec.describe()}"
    return None


def live_values(user_ns: Mapping[str, Any], name: str | None) -> tuple[dict[str, Any], str]:
    """The values to check and a description of where they came from."""
    if name:
        value = user_ns.get(name)
        if not isinstance(value, Mapping):
            raise ValueError(f"--config {name}: no dict named {name!r} in the namespace")
        return {str(k): v for k, v in value.items()}, f"dict {name}"
    return {k: v for k, v in user_ns.items() if k.isupper() and not k.startswith("_")}, "UPPER_CASE constants"


def check_config(user_ns: Mapping[str, Any], name: str | None, config: Config, kind: str,
                 location: Location) -> list[Finding]:
    """CFG001 findings (source="runtime") for the live configuration."""
    values, where = live_values(user_ns, name)
    session = os.environ.get("JPY_SESSION_NAME") or ""  # the notebook's path, as Jupyter gives it to the kernel
    stem = Path(session).stem if session.endswith((".ipynb", ".py")) else None
    out: list[Finding] = []
    for key, spec in config.constants.items():
        if spec.notebooks not in ("all", kind):
            continue
        if key not in values:
            if spec.required:
                out.append(_finding(location, f"Required setting {key} is missing from the {where} "
                                              f"({spec.describe()}).", {"constant": key, "source": where}))
            continue
        problem = check_value(spec, values[key], config, stem=stem)
        if problem:
            out.append(_finding(location, f"{problem} (in the {where}).",
                                {"constant": key, "expected": spec.describe(), "source": where}))
    return out


def _finding(location: Location, message: str, evidence: dict[str, Any]) -> Finding:
    try:
        from ..rules.registry import get_rule

        return get_rule("CFG001").finding(location, message, evidence, source="runtime")
    except KeyError:
        return Finding(rule_id="CFG001", severity=Severity.ERROR, category="config", message=message,
                       location=location, evidence=evidence, rule_name="invalid-config-constant", source="runtime")
