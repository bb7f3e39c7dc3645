"""IPython magics. Each front end lives in its own module; `register` loads those that exist."""

from __future__ import annotations

import importlib

# (module, class) pairs; each class is an IPython `Magics` subclass.
MAGIC_CLASSES = [
    ("jupyter_trainguard.magics.guarded", "GuardedTrainMagics"),
    ("jupyter_trainguard.magics.audit", "TrainAuditMagics"),
    ("jupyter_trainguard.magics.estimate", "EstimateMagics"),
]

_registered: dict[int, list[object]] = {}


def register(ipython) -> None:
    instances = []
    for module, cls_name in MAGIC_CLASSES:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue
            raise
        cls = getattr(mod, cls_name)
        instance = cls(ipython)
        ipython.register_magics(instance)
        instances.append(instance)
    _registered[id(ipython)] = instances
    from ..runtime.session_log import watch

    watch(ipython)  # the guard analyses what the kernel holds (re-runs replace, failed compiles drop out)


def unregister(ipython) -> None:
    from ..runtime.session_log import unwatch

    unwatch(ipython)
    for instance in _registered.pop(id(ipython), []):
        for kind, names in getattr(instance, "magics", {}).items():
            for name in names:
                ipython.magics_manager.magics[kind].pop(name, None)
