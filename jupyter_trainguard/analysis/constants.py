"""Check a constant's value against its `[tool.trainguard.constants]` spec (shared by the scanner and the guard)."""

from __future__ import annotations

import re
from typing import Any

from ..config import Config, ConstantSpec

_TYPES: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}


def _type_ok(spec: ConstantSpec, value: Any) -> bool:
    if spec.type in ("any",):
        return True
    if spec.type.endswith("_list"):
        inner = spec.type[: -len("_list")]
        return isinstance(value, (list, tuple)) and all(_scalar_ok(inner, v) for v in value)
    return _scalar_ok(spec.type, value)


def _scalar_ok(typ: str, value: Any) -> bool:
    if typ in ("int", "float") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES.get(typ, (object,)))


def allowed_keys(spec: ConstantSpec, config: Config) -> tuple[str, ...] | None:
    """The keys of the `keys_of` dict in the components' source, or None when they cannot be read."""
    if not spec.keys_of or config.components_dir is None:
        return None
    from .components import index_components  # only a project with components reads them

    index = index_components(config.components_dir, config.package_name or "")
    return index.dict_keys(spec.keys_of)


def naming_pattern(spec: ConstantSpec, stem: str | None) -> str | None:
    """The spec's regular expression with `{stem}` replaced by the notebook's file name without its suffix
    (`outputs/{stem}` checks that an output folder follows the notebook); None when it needs a stem and there is
    none (a live session without a notebook file)."""
    if not spec.pattern:
        return None
    if "{stem}" not in spec.pattern:
        return spec.pattern
    return spec.pattern.replace("{stem}", re.escape(stem)) if stem else None


def check_constant(spec: ConstantSpec, value: Any, config: Config, stem: str | None = None) -> str | None:
    """A sentence saying why `value` is invalid for `spec`, or None when it is valid (or cannot be judged)."""
    if not _type_ok(spec, value):
        return f"{spec.name} = {value!r} is not {spec.describe()}"
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if spec.type.endswith("_list") and not items:
        return f"{spec.name} is an empty list"
    for item in items:
        if spec.choices is not None and item not in spec.choices:
            return f"{spec.name} = {value!r}: {item!r} is not one of " + ", ".join(repr(c) for c in spec.choices)
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            if spec.min is not None and item < spec.min:
                return f"{spec.name} = {value!r}: {item!r} is below the minimum {spec.min:g}"
            if spec.max is not None and item > spec.max:
                return f"{spec.name} = {value!r}: {item!r} is above the maximum {spec.max:g}"
        pattern = naming_pattern(spec, stem)
        if pattern and isinstance(item, str) and not re.search(pattern, item):
            return f"{spec.name} = {value!r} does not match the naming convention /{pattern}/"
    keys = allowed_keys(spec, config)
    if keys is not None:
        for item in items:
            if str(item) not in keys:
                return f"{spec.name} = {item!r} is not a key of {spec.keys_of} (known: {', '.join(keys)})"
    return None
