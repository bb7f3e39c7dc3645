"""`__dataclass_fields__` for the analysis's `findings.Record` models whose fields `@dataclass` cannot read from
the class alone: a slotted record (no class-level defaults) and fields left out of repr and comparison."""

from __future__ import annotations

import threading
from typing import Any

from ..findings import FACTORY

_LOCK = threading.Lock()


class DataclassFields:
    """Set as `__dataclass_fields__` on a `Record` subclass; on first use (`dataclasses.fields`, `replace`,
    `asdict`) it lets `Record` make the fields, then gives those without a class-level default the default of
    `__init__` (a slotted class has none) and marks `hidden` ones `field(repr=False, compare=False)`."""

    def __init__(self, hidden: tuple[str, ...] = ()) -> None:
        self.hidden = hidden

    def __get__(self, obj: object, cls: type) -> dict[str, Any]:
        from dataclasses import MISSING

        with _LOCK:
            if cls.__dict__.get("__dataclass_fields__") is self:
                delattr(cls, "__dataclass_fields__")
                fields = cls.__dataclass_fields__  # `Record`'s own, which runs `@dataclass` on the class
                init = cls.__init__
                names = init.__code__.co_varnames[1 : init.__code__.co_argcount]
                defaults = init.__defaults__ or ()
                for name, value in zip(names[len(names) - len(defaults) :], defaults):
                    f = fields[name]
                    if f.default is MISSING and f.default_factory is MISSING and value is not FACTORY:
                        f.default = value
                for name in self.hidden:
                    fields[name].repr = fields[name].compare = False
        return cls.__dict__["__dataclass_fields__"]
