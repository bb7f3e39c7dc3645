"""The models a scan builds at start-up (`findings.Record` subclasses) behave as the dataclasses their fields
declare: same `__init__`, defaults, repr, equality, hashing, immutability, and `dataclasses` functions work."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
import subprocess
import sys

import pytest

from jupyter_trainguard.findings import FACTORY, FrozenRecord, Record, factory

MODULES = (
    "jupyter_trainguard.findings",
    "jupyter_trainguard.config",
    "jupyter_trainguard.notebook.model",
    "jupyter_trainguard.suppression",
    "jupyter_trainguard.rules.registry",
    "jupyter_trainguard.rules.context",
    "jupyter_trainguard.rules.pipeline_usage",
    "jupyter_trainguard.engine",
    "jupyter_trainguard.analysis.parsed",
    "jupyter_trainguard.analysis.usage",
    "jupyter_trainguard.analysis.components",
    "jupyter_trainguard.analysis.provenance.rows",
    "jupyter_trainguard.analysis.provenance.values",
    "jupyter_trainguard.analysis.provenance.state",
    "jupyter_trainguard.analysis.provenance.temporal",
    "jupyter_trainguard.analysis.provenance.api.table",
    "jupyter_trainguard.analysis.provenance.detectors.common",
    "jupyter_trainguard.analysis.provenance.detectors.wording",
)


def record_classes() -> list[type]:
    for name in MODULES:
        importlib.import_module(name)
    found, todo = [], [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub is not FrozenRecord and sub.__module__.startswith("jupyter_trainguard."):
                found.append(sub)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def slotted(cls: type) -> bool:
    """A record without `__dict__` (its fields in `__slots__`), as `@dataclass(slots=True)`."""
    return not hasattr(cls(**required(cls)), "__dict__")


def reference(cls: type) -> type:
    """The dataclass `@dataclass` makes of the same declaration."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory, repr=f.repr,
                                                compare=f.compare))
             for f in dataclasses.fields(cls)]
    ref = dataclasses.make_dataclass(cls.__name__, specs, frozen=issubclass(cls, FrozenRecord), eq=cls._eq,
                                     slots=slotted(cls))
    ref.__qualname__ = cls.__qualname__
    return ref


def state(obj: object) -> dict[str, object]:
    """The fields' values: `vars` of the object, or of its slots."""
    if hasattr(obj, "__dict__"):
        return vars(obj)
    return {name: getattr(obj, name) for name in obj.__slots__}  # type: ignore[attr-defined]


def required(cls: type) -> dict[str, str]:
    return {f.name: f"<{f.name}>" for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}


CLASSES = record_classes()


def test_every_model_is_found():
    names = {c.__name__ for c in CLASSES}
    assert {"Location", "Finding", "Report", "Config", "Cell", "Notebook", "Rule", "Hit", "Directive"} <= names
    assert {"ParsedCell", "ParsedNotebook", "CallSite", "Usage", "Signature", "ModuleIndex", "ComponentIndex",
            "Selection", "Fit", "Obj", "Eval", "Val", "Record", "SplitUse", "ClassRow", "FuncRow", "Leak",
            "ScanResult"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__.rpartition('.')[2]}.{c.__qualname__}")
def test_record_behaves_as_its_dataclass(cls):
    ref = reference(cls)
    assert [f.name for f in dataclasses.fields(cls)] == list(cls._fields) == list(cls.__match_args__)

    def params(c: type) -> list[tuple[str, object, str]]:
        return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(c).parameters.values()]

    assert params(cls) == params(ref)  # names, order, defaults (`<factory>` for a default_factory)

    args = required(cls)
    made, expected = cls(**args), ref(**args)
    assert state(made) == state(expected)
    assert hasattr(made, "__dict__") == hasattr(expected, "__dict__")
    assert repr(made) == repr(expected)
    first = next(iter(args), None)
    if cls._eq:
        assert made == cls(**args) and not (made != cls(**args))
        if first is not None:
            assert made != cls(**{**args, first: "other"})
        for f in dataclasses.fields(cls):
            if not f.compare:  # `field(compare=False)`: equal whatever it holds
                assert made == cls(**{**args, f.name: "other"}) and (ref(**args) == ref(**{**args, f.name: "other"}))
    else:
        assert made == made and made != cls(**args) and hash(made) == object.__hash__(made)  # identity
    assert made.__eq__(expected) is NotImplemented
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            assert getattr(made, f.name) is not getattr(cls(**args), f.name)  # a fresh object each time

    if cls._eq and issubclass(cls, FrozenRecord):
        assert hash(made) == hash(expected) == hash(cls(**args))
    elif cls._eq:
        with pytest.raises(TypeError):
            hash(made)
    if issubclass(cls, FrozenRecord):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, cls._fields[0], "x")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(made, cls._fields[0])
    else:
        setattr(made, cls._fields[0], "changed")
        assert getattr(made, cls._fields[0]) == "changed"
        made = cls(**args)

    if first is not None:
        changed = dataclasses.replace(made, **{first: "other"})
        assert state(changed) == state(made._replace(**{first: "other"})) == state(cls(**{**args, first: "other"}))
    assert dataclasses.asdict(made) == dataclasses.asdict(expected)
    assert state(pickle.loads(pickle.dumps(made))) == state(made)


class _Identity(Record, eq=False):
    """A record compared by identity, as `@dataclass(eq=False)`."""

    name: str
    items: list[str] = factory(list)

    def __init__(self, name: str, items: list[str] = FACTORY) -> None:
        self.name = name
        self.items = [] if items is FACTORY else items


def test_identity_record_behaves_as_its_dataclass():
    test_record_behaves_as_its_dataclass(_Identity)


def test_models_import_without_dataclasses():
    """The models do not import `dataclasses` (and with it `inspect`) until one of its functions asks for them."""
    plain = [m for m in MODULES if not m.startswith("jupyter_trainguard.rules.") or m.endswith(".registry")]
    code = ("import sys\n" + "".join(f"import {m}\n" for m in plain) +
            "assert 'dataclasses' not in sys.modules\n"
            "import dataclasses\n"
            "from jupyter_trainguard.findings import Location\n"
            "loc = dataclasses.replace(Location('a', 1), cell=2)\n"
            "assert loc == Location('a', 2) and dataclasses.fields(loc)[0].name == 'path'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
