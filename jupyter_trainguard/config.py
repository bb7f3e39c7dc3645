"""`[tool.trainguard]` in the nearest `pyproject.toml`: notebook classes, components and constant schemas."""

from __future__ import annotations

import fnmatch
import os
import sys
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG
from typing import Any

from .findings import FACTORY, FrozenRecord, Record, factory


class _LazyToml:
    """tomllib (which imports datetime) is loaded when a pyproject.toml is first read, not at start-up."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        return getattr(importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli"), name)


tomllib = _LazyToml()

CONSTANT_TYPES = ("str", "int", "float", "bool", "int_list", "str_list", "any")


class ConfigError(ValueError):
    """The `[tool.trainguard]` table is malformed; the message says where."""


class ConstantSpec(FrozenRecord):
    """What a notebook constant may hold."""

    name: str
    type: str = "any"
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    pattern: str | None = None
    keys_of: str | None = None  # "module.DICT" inside the components folder
    required: bool = False
    notebooks: str = "all"  # "all" | "standard" | "experimental"

    def __init__(self, name: str, type: str = "any", choices: tuple[Any, ...] | None = None,
                 min: float | None = None, max: float | None = None, pattern: str | None = None,
                 keys_of: str | None = None, required: bool = False, notebooks: str = "all") -> None:
        self.__dict__.update(name=name, type=type, choices=choices, min=min, max=max, pattern=pattern,
                             keys_of=keys_of, required=required, notebooks=notebooks)

    def describe(self) -> str:
        parts = []
        if self.type != "any":
            parts.append(f"a list of {self.type[:-5]}" if self.type.endswith("_list") else f"a {self.type}")
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        if self.min is not None or self.max is not None:
            lo = "-inf" if self.min is None else f"{self.min:g}"
            hi = "inf" if self.max is None else f"{self.max:g}"
            parts.append(f"in [{lo}, {hi}]")
        if self.pattern:
            parts.append(f"matching /{self.pattern}/")
        if self.keys_of:
            parts.append(f"a key of {self.keys_of}")
        return ", ".join(parts) or "any value"


class Config(Record):
    """The `[tool.trainguard]` settings that apply to a notebook (defaults where there is no table)."""

    root: Path
    source: Path | None = None
    standard: tuple[str, ...] = ()
    experimental: tuple[str, ...] = ()
    components: str | None = None  # folder with the shared component modules, relative to root
    components_package: str | None = None
    runner: str | None = None  # "module.function" inside the components
    required_calls: tuple[str, ...] = ()
    constants: dict[str, ConstantSpec] = factory(dict)
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = factory(dict)
    fail_on: str = "error"
    raw: dict[str, Any] = factory(dict)

    def __init__(self, root: Path, source: Path | None = None, standard: tuple[str, ...] = (),
                 experimental: tuple[str, ...] = (), components: str | None = None,
                 components_package: str | None = None, runner: str | None = None,
                 required_calls: tuple[str, ...] = (), constants: dict[str, ConstantSpec] = FACTORY,
                 select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), severity: dict[str, str] = FACTORY,
                 fail_on: str = "error", raw: dict[str, Any] = FACTORY) -> None:
        self.root = root
        self.source = source
        self.standard = standard
        self.experimental = experimental
        self.components = components
        self.components_package = components_package
        self.runner = runner
        self.required_calls = required_calls
        self.constants = {} if constants is FACTORY else constants
        self.select = select
        self.ignore = ignore
        self.severity = {} if severity is FACTORY else severity
        self.fail_on = fail_on
        self.raw = {} if raw is FACTORY else raw

    def notebook_kind(self, path: str | Path) -> str:
        """"standard", "experimental" or "other", by the configured globs (relative to the config root)."""
        p = Path(path)
        try:
            rel = p.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            rel = p.as_posix()
        for kind, globs in (("standard", self.standard), ("experimental", self.experimental)):
            for g in globs:
                if fnmatch.fnmatch(rel, g) or ("/" not in g and fnmatch.fnmatch(p.name, g)):
                    return kind
        return "other"

    @property
    def components_dir(self) -> Path | None:
        return (self.root / self.components) if self.components else None

    @property
    def package_name(self) -> str | None:
        if self.components_package:
            return self.components_package
        if self.components:
            return self.components.strip("/").replace("/", ".")
        return None

    def cache_key(self) -> str:
        return str(self.source or self.root)


def _tuple(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"[tool.trainguard] {key} must be a string or a list of strings")


def _constant(name: str, spec: Any) -> ConstantSpec:
    if not isinstance(spec, dict):
        raise ConfigError(f"[tool.trainguard.constants.{name}] must be a table")
    unknown = set(spec) - {"type", "choices", "min", "max", "pattern", "keys_of", "required", "notebooks"}
    if unknown:
        raise ConfigError(f"[tool.trainguard.constants.{name}] has unknown keys: {', '.join(sorted(unknown))}")
    typ = spec.get("type", "any")
    if typ not in CONSTANT_TYPES:
        raise ConfigError(f"[tool.trainguard.constants.{name}] type must be one of {', '.join(CONSTANT_TYPES)}")
    choices = spec.get("choices")
    if choices is not None and not isinstance(choices, list):
        raise ConfigError(f"[tool.trainguard.constants.{name}] choices must be a list")
    for bound in ("min", "max"):
        if spec.get(bound) is not None and not isinstance(spec[bound], (int, float)):
            raise ConfigError(f"[tool.trainguard.constants.{name}] {bound} must be a number")
    return ConstantSpec(
        name=name, type=typ, choices=tuple(choices) if choices is not None else None,
        min=spec.get("min"), max=spec.get("max"), pattern=spec.get("pattern"), keys_of=spec.get("keys_of"),
        required=bool(spec.get("required", False)), notebooks=spec.get("notebooks", "all"),
    )


def config_from_table(table: dict[str, Any], root: Path, source: Path | None = None) -> Config:
    if not isinstance(table, dict):
        raise ConfigError("[tool.trainguard] must be a table")
    constants = table.get("constants", {}) or {}
    if not isinstance(constants, dict):
        raise ConfigError("[tool.trainguard.constants] must be a table")
    severity = table.get("severity", {}) or {}
    if not isinstance(severity, dict) or any(v not in ("error", "warning", "info") for v in severity.values()):
        raise ConfigError("[tool.trainguard.severity] maps rule ids to error, warning or info")
    fail_on = table.get("fail_on", "error")
    if fail_on not in ("error", "warning", "info", "never"):
        raise ConfigError("[tool.trainguard] fail_on must be error, warning, info or never")
    return Config(
        root=root, source=source,
        standard=_tuple(table.get("standard"), "standard"),
        experimental=_tuple(table.get("experimental"), "experimental"),
        components=table.get("components"), components_package=table.get("components_package"),
        runner=table.get("runner"),
        required_calls=_tuple(table.get("required_calls"), "required_calls"),
        constants={k: _constant(k, v) for k, v in constants.items()},
        select=_tuple(table.get("select"), "select"), ignore=_tuple(table.get("ignore"), "ignore"),
        severity=dict(severity), fail_on=fail_on, raw=table,
    )


def find_pyproject(start: str | Path) -> Path | None:
    """The nearest `pyproject.toml` with a `[tool.trainguard]` table, searching upwards from `start` (with string
    paths and one stat per folder: the guard asks before every guarded cell)."""
    d = os.path.realpath(start)  # what `Path.resolve()` does
    if os.path.isfile(d) or not os.path.exists(d):
        d = os.path.dirname(d)
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        try:
            st = os.stat(candidate)
        except OSError:
            st = None
        if st is not None and S_ISREG(st.st_mode) and _has_table(Path(candidate), st.st_mtime):
            return Path(candidate)
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


@lru_cache(maxsize=64)
def _read_toml(path: str, mtime: float) -> dict[str, Any]:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def _has_table(path: Path, mtime: float | None = None) -> bool:
    try:
        data = _read_toml(str(path), path.stat().st_mtime if mtime is None else mtime)
    except (OSError, tomllib.TOMLDecodeError):
        return "[tool.trainguard" in path.read_text(errors="replace") if path.exists() else False
    return "trainguard" in data.get("tool", {})


def load_config(start: str | Path | None = None, explicit: str | Path | None = None) -> Config:
    """Discover and parse the configuration; an empty default config when there is none."""
    source = Path(explicit) if explicit else (find_pyproject(start) if start is not None else None)
    if source is None:
        root = Path(start).resolve() if start is not None else Path.cwd()
        return Config(root=root if root.is_dir() else root.parent)
    try:
        data = _read_toml(str(source), source.stat().st_mtime)
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source} is not valid TOML: {exc}") from exc
    table = data.get("tool", {}).get("trainguard", {})
    return config_from_table(table, root=source.parent.resolve(), source=source)
