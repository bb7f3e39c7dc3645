"""The one findings model shared by every front end: `Finding`, `Location`, `Report`; and `Record`, the base that
makes these and the other models a scan builds at start-up cheap dataclasses."""

from __future__ import annotations

import enum
import reprlib
import threading
from collections.abc import Callable
from typing import Any, ClassVar, Self

SCHEMA_VERSION = "1.0"

CATEGORIES: dict[str, str] = {
    "leakage.preprocessing": "A transform fitted on data that later reaches validation or test.",
    "leakage.overlap": "The same rows can end up in training and evaluation data.",
    "leakage.multi-test": "The test set influences model selection or is scored repeatedly.",
    "leakage.validation": "Cross-validation folds carry statistics or copies of their own rows (the test part is "
                          "untouched, the score used to choose is optimistic).",
    "leakage.target": "Features carry the label or information unavailable at prediction time.",
    "leakage.temporal": "Time-ordered data split or validated so the model sees the future.",
    "reproducibility.seeding": "Random number generators or random_state left unseeded.",
    "reproducibility.determinism": "Nondeterministic kernels or settings that cannot take effect.",
    "reproducibility.environment": "Dependencies not pinned, so a rerun may use other versions.",
    "reproducibility.order": "Cells ran in an order that differs from the document.",
    "checkpointing": "Checkpoints that cannot resume training exactly or load unsafely.",
    "tracking": "Experiment runs not logged, or left open after a failure.",
    "training": "Training-loop mistakes that change reported metrics.",
    "evaluation": "Metrics computed on the wrong data.",
    "pipeline": "Notebooks that bypass or misuse the shared training components.",
    "config": "Configuration constants with invalid values.",
    "notebook": "The notebook itself could not be (fully) read or parsed.",
    "memory": "GPU or host memory problems seen while training.",
}


class _Factory:
    """A field's `default_factory` (`factory(list)`), declared without importing `dataclasses`. `FACTORY`, the
    default of such an argument of `__init__`, means "not given" and shows as dataclasses show it."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any] | None = None) -> None:
        self.make = make

    def __repr__(self) -> str:
        return "<factory>"


FACTORY: Any = _Factory()


def factory(make: Callable[[], Any]) -> Any:
    """A `Record` field's `field(default_factory=make)`."""
    return _Factory(make)


_FIELDS_LOCK = threading.Lock()


class _DataclassFields:
    """`__dataclass_fields__` of a `Record` class, made by `@dataclass` itself on first use (`dataclasses.fields`,
    `replace`, `asdict`, `is_dataclass`), which then replaces this descriptor on the class."""

    def __get__(self, obj: object, cls: type) -> dict[str, Any]:
        if cls is Record or cls is FrozenRecord:
            raise AttributeError("__dataclass_fields__")
        import dataclasses

        with _FIELDS_LOCK:
            if "__dataclass_fields__" not in cls.__dict__:
                for name, value in list(cls.__dict__.items()):
                    if isinstance(value, _Factory):
                        setattr(cls, name, dataclasses.field(default_factory=value.make))
                dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
        return cls.__dict__["__dataclass_fields__"]


class Record:
    """Base of the models a scan builds at start-up or in bulk (findings, rules, cells, configuration): a dataclass
    without the cost of `@dataclass`, which compiles `__init__`, `__repr__` and `__eq__` from source at import
    (about 1 ms a class) and imports `inspect`.

    A subclass declares its fields as a dataclass does (`name: type = default`, `factory(list)` for a
    `default_factory`) and writes its own `__init__`, in the fields' order (a factory field's default is
    `FACTORY`). `__repr__`, `__eq__` (and for `FrozenRecord`, `__hash__` and immutability) behave as the generated
    ones; `class C(Record, eq=False)` compares and hashes by identity, as `@dataclass(eq=False)`. `_replace` is
    `dataclasses.replace`, and `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` work too (they import
    `dataclasses`); tests/perf/test_records.py checks every subclass against the dataclass its fields declare."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _eq: bool = True
    __dataclass_fields__: ClassVar[dict[str, Any]] = _DataclassFields()  # type: ignore[assignment]

    def __init_subclass__(cls, eq: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
               if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]
        cls._fields = cls._fields + tuple(name for name in own if name not in cls._fields)
        cls.__match_args__ = cls._fields
        if not eq:
            cls._eq = False
            cls.__eq__ = object.__eq__  # type: ignore[method-assign]
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]

    def _replace(self, **changes: Any) -> Self:
        """A copy with these fields changed (`dataclasses.replace`)."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return type(self)(**values)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]


class FrozenRecord(Record):
    """A `Record` that is immutable and hashable, as a `frozen=True` dataclass (its `__init__` fills `__dict__`)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


class Severity(str, enum.Enum):
    """How serious a finding is; ordered error > warning > info."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]

    @classmethod
    def parse(cls, value: str | Severity) -> Severity:
        if isinstance(value, Severity):
            return value
        value = value.lower().strip()
        aliases = {"e": "error", "w": "warning", "warn": "warning", "i": "info", "note": "info"}
        return cls(aliases.get(value, value))


def cell_label(index: int | None, execution_count: int | None = None) -> str:
    """The one spelling of a cell in every human-facing text: "cell 3 [In 2]".

    "cell N" is 1-based over all cells, markdown included, as JupyterLab counts them; "[In k]" is the execution
    count when known. A live-session cell whose place in the notebook is unknown is "[In k]" alone; "" when
    neither is known.
    """
    parts = []
    if index is not None:
        parts.append(f"cell {index + 1}")
    if execution_count is not None:
        parts.append(f"[In {execution_count}]")
    return " ".join(parts)


def cell_ref(cell: Any) -> str:
    """The label of a notebook-model cell (`notebook.model.Cell`) for finding messages.

    A cell that carries its own `label` (live-session cells, whose index is a place in the history, not in the
    notebook) uses it; other cells are labelled from their index and execution count.
    """
    label = getattr(cell, "label", None)
    if label:
        return label
    return cell_label(getattr(cell, "index", None), getattr(cell, "execution_count", None)) or "a cell"


class Location(FrozenRecord):
    """Where a finding points: file, cell (0-based index over all cells, markdown included; JSON `cell_index`),
    the cell's nbformat id and execution count when known, and the line within the cell (1-based)."""

    path: str
    cell: int | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    file_line: int | None = None
    execution_count: int | None = None
    cell_id: str | None = None

    def __init__(self, path: str, cell: int | None = None, line: int | None = None, column: int | None = None,
                 end_line: int | None = None, file_line: int | None = None, execution_count: int | None = None,
                 cell_id: str | None = None) -> None:
        self.__dict__.update(path=path, cell=cell, line=line, column=column, end_line=end_line, file_line=file_line,
                             execution_count=execution_count, cell_id=cell_id)

    @property
    def in_session(self) -> bool:
        """A live-session location ("<session>"): `cell` is a place in the kernel's history, not in a notebook."""
        return self.path.startswith("<")

    @property
    def cell_text(self) -> str:
        """"cell 3 [In 2]" (see `cell_label`); "[In 2]" in a live session; "" when the location names no cell."""
        if self.in_session and self.execution_count is not None:
            return cell_label(None, self.execution_count)
        return cell_label(self.cell, self.execution_count)

    def label(self) -> str:
        parts = [self.path]
        if self.cell_text:
            parts.append(self.cell_text)
        if self.line is not None:
            parts.append(f"line {self.line}")
        return ":".join(parts[:1]) + (" (" + ", ".join(parts[1:]) + ")" if len(parts) > 1 else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `cell_index` (with `cell`, its 1.0 alias), `cell_id`, `execution_count`, lines. A session
        location named by its execution count has no `cell_index`: its history place is no notebook cell."""
        out: dict[str, Any] = {"path": self.path}
        if self.cell is not None and not (self.in_session and self.execution_count is not None):
            out["cell_index"] = self.cell
            out["cell"] = self.cell
        for key in ("cell_id", "execution_count", "line", "column", "end_line", "file_line"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Location:
        values = {k: data.get(k) for k in cls._fields if k in data}
        if data.get("cell_index") is not None:
            values["cell"] = data["cell_index"]
        values.setdefault("path", "<unknown>")
        return cls(**values)


class Finding(Record):
    """One problem found by one rule at one place."""

    rule_id: str
    severity: Severity
    category: str
    message: str
    location: Location
    impact: str = ""
    fix: str = ""
    evidence: dict[str, Any] = factory(dict)
    rule_name: str = ""
    source: str = "static"  # "static" | "runtime" | "artifact"

    def __init__(self, rule_id: str, severity: Severity, category: str, message: str, location: Location,
                 impact: str = "", fix: str = "", evidence: dict[str, Any] = FACTORY, rule_name: str = "",
                 source: str = "static") -> None:
        self.rule_id = rule_id
        self.severity = severity
        self.category = category
        self.message = message
        self.location = location
        self.impact = impact
        self.fix = fix
        self.evidence = {} if evidence is FACTORY else evidence
        self.rule_name = rule_name
        self.source = source

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.path, loc.cell if loc.cell is not None else -1, loc.line or 0, -self.severity.rank, self.rule_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "rule_name": self.rule_name,
            "severity": self.severity.value,
            "category": self.category,
            "message": self.message,
            "location": self.location.to_dict(),
            "impact": self.impact,
            "fix": self.fix,
            "evidence": self.evidence,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            rule_id=data["rule_id"],
            severity=Severity.parse(data["severity"]),
            category=data["category"],
            message=data["message"],
            location=Location.from_dict(data.get("location", {"path": "<unknown>"})),
            impact=data.get("impact", ""),
            fix=data.get("fix", ""),
            evidence=data.get("evidence", {}) or {},
            rule_name=data.get("rule_name", ""),
            source=data.get("source", "static"),
        )


class Suppressed(Record):
    """A finding that was silenced, and how."""

    finding: Finding
    reason: str  # e.g. "inline # trainguard: ignore[LEAK001]" or "--ignore LEAK"

    def __init__(self, finding: Finding, reason: str) -> None:
        self.finding = finding
        self.reason = reason

    def to_dict(self) -> dict[str, Any]:
        return {"finding": self.finding.to_dict(), "reason": self.reason}


class Report(Record):
    """All that one analysis of one notebook (or live session) produced."""

    path: str
    findings: list[Finding] = factory(list)
    suppressed: list[Suppressed] = factory(list)
    skipped_rules: dict[str, str] = factory(dict)  # rule id -> why
    rules_run: list[str] = factory(list)
    notebook_kind: str = "other"  # "standard" | "experimental" | "other"
    cells: int = 0
    elapsed_ms: float = 0.0
    error: str | None = None  # set when the notebook could not be read at all

    def __init__(self, path: str, findings: list[Finding] = FACTORY, suppressed: list[Suppressed] = FACTORY,
                 skipped_rules: dict[str, str] = FACTORY, rules_run: list[str] = FACTORY,
                 notebook_kind: str = "other", cells: int = 0, elapsed_ms: float = 0.0,
                 error: str | None = None) -> None:
        self.path = path
        self.findings = [] if findings is FACTORY else findings
        self.suppressed = [] if suppressed is FACTORY else suppressed
        self.skipped_rules = {} if skipped_rules is FACTORY else skipped_rules
        self.rules_run = [] if rules_run is FACTORY else rules_run
        self.notebook_kind = notebook_kind
        self.cells = cells
        self.elapsed_ms = elapsed_ms
        self.error = error

    def sorted_findings(self) -> list[Finding]:
        return sorted(self.findings, key=Finding.sort_key)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def max_severity(self) -> Severity | None:
        if not self.findings:
            return None
        return max((f.severity for f in self.findings), key=lambda s: s.rank)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "path": self.path,
            "notebook_kind": self.notebook_kind,
            "cells": self.cells,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "error": self.error,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.sorted_findings()],
            "suppressed": [s.to_dict() for s in self.suppressed],
            "skipped_rules": dict(sorted(self.skipped_rules.items())),
            "rules_run": sorted(self.rules_run),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        return cls(
            path=data["path"],
            findings=[Finding.from_dict(f) for f in data.get("findings", [])],
            suppressed=[
                Suppressed(Finding.from_dict(s["finding"]), s["reason"]) for s in data.get("suppressed", [])
            ],
            skipped_rules=dict(data.get("skipped_rules", {})),
            rules_run=list(data.get("rules_run", [])),
            notebook_kind=data.get("notebook_kind", "other"),
            cells=data.get("cells", 0),
            elapsed_ms=data.get("elapsed_ms", 0.0),
            error=data.get("error"),
        )
