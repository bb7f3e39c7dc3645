"""The isolated side of `trainguard pipeline`: run as `python -m jupyter_trainguard.pipeline.probe`.

Reads a JSON request on stdin, imports the components (tracing every import inside the package, so a hang or a
crash can be blamed on the innermost module being imported), describes signatures, binds calls, compares
annotations, reads accepted values and optionally runs the smoke entry point. Each result is one JSON line on
the original stdout; user code's own output goes to stderr. Only the standard library is imported here.
"""

from __future__ import annotations

import difflib
import faulthandler
import importlib
import importlib.abc
import inspect
import json
import os
import signal
import sys
import time
import traceback
import typing
from typing import Any

_PROTO: Any = None
_COMPONENTS_DIR = ""


def emit(event: str, **data: Any) -> None:
    _PROTO.write(json.dumps({"event": event, **data}, default=repr) + "\n")
    _PROTO.flush()


def _in_components(filename: str) -> bool:
    return bool(_COMPONENTS_DIR) and os.path.abspath(filename).startswith(_COMPONENTS_DIR + os.sep)


def describe_error(exc: BaseException) -> dict[str, Any]:
    """Type, message, the innermost frame inside the components, and a short traceback."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break the report
        message = f"<{type(exc).__name__} whose message cannot be shown>"
    out: dict[str, Any] = {"type": type(exc).__name__, "message": message[:2000]}
    if isinstance(exc, SystemExit):
        out["exit_code"] = exc.code if isinstance(exc.code, (int, str, type(None))) else repr(exc.code)
        out["message"] = f"sys.exit({exc.code!r}) was called"
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        out["file"], out["line"] = os.path.abspath(exc.filename), exc.lineno
    else:
        inside = [f for f in frames if _in_components(f.filename)]
        if inside:
            out["file"], out["line"] = os.path.abspath(inside[-1].filename), inside[-1].lineno
    out["traceback"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-12:])[-4000:]
    return out


class _TracedLoader(importlib.abc.Loader):
    def __init__(self, inner: Any, tracer: _Tracer) -> None:
        self.inner, self.tracer = inner, tracer

    def create_module(self, spec):  # noqa: ANN001
        return self.inner.create_module(spec)

    def exec_module(self, module) -> None:  # noqa: ANN001
        name = module.__name__
        emit("import_start", module=name)
        start = time.perf_counter()
        try:
            self.inner.exec_module(module)
        except BaseException as exc:
            err = describe_error(exc)
            cause = self.tracer.blamed.get(id(exc))
            if cause and cause != name:
                err["caused_by"] = cause
            else:
                self.tracer.blamed[id(exc)] = name
                self.tracer.keep.append(exc)
            emit("import_end", module=name, ok=False, seconds=time.perf_counter() - start, error=err)
            raise
        emit("import_end", module=name, ok=True, seconds=time.perf_counter() - start,
             file=getattr(module, "__file__", None))

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)


class _Tracer(importlib.abc.MetaPathFinder):
    """Wraps the loader of every module of the components package (and its parents) to report imports."""

    def __init__(self, package: str, blocked: dict[str, str]) -> None:
        parts = package.split(".")
        self.parents = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        self.package, self.blocked = package, blocked
        self.blamed: dict[int, str] = {}
        self.keep: list[BaseException] = []

    def find_spec(self, fullname, path, target=None):  # noqa: ANN001
        if fullname not in self.parents and not fullname.startswith(self.package + "."):
            return None
        if fullname in self.blocked:
            exc = ImportError(f"{fullname} was not imported: {self.blocked[fullname]}")
            self.blamed[id(exc)] = fullname  # modules importing it fail "because of" it
            self.keep.append(exc)
            raise exc
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _TracedLoader(spec.loader, self)
                return spec
        return None


def resolve(package: str, target: str) -> Any:
    """`module.attr.attr` relative to the package: import the longest module prefix, then getattr."""
    parts = target.split(".")
    obj, rest = None, parts
    for i in range(len(parts), 0, -1):
        name = ".".join([package, *parts[:i]])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if not exc.name or not (name == exc.name or name.startswith(exc.name + ".")):
                raise  # a module the component imports is missing: a real error
            continue
        rest = parts[i:]
        break
    if obj is None:
        obj, rest = importlib.import_module(package), parts
    for attr in rest:
        if not hasattr(obj, attr):
            close = difflib.get_close_matches(attr, [a for a in dir(obj) if not a.startswith("_")], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise AttributeError(f"{getattr(obj, '__name__', obj)!s} has no attribute '{attr}'{hint}")
        obj = getattr(obj, attr)
    return obj


def signature_of(package: str, target: str, method: bool) -> inspect.Signature:
    obj = resolve(package, target)
    if method:
        owner_name, _, attr = target.rpartition(".")
        owner = resolve(package, owner_name)
        raw = inspect.getattr_static(owner, attr)
        sig = inspect.signature(obj)
        if inspect.isfunction(raw):
            params = list(sig.parameters.values())[1:]
            sig = sig.replace(parameters=params)
        return sig
    return inspect.signature(obj)


def plain(sig: inspect.Signature) -> str:
    """The signature without annotations: `(model, dataloader, optimizer, *, epochs=1)`."""
    params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=sig.empty))


def _where(obj: Any) -> dict[str, Any]:
    try:
        fn = inspect.unwrap(obj.__init__ if inspect.isclass(obj) and "__init__" in vars(obj) else obj)
        return {"file": os.path.abspath(inspect.getsourcefile(fn) or ""), "line": inspect.getsourcelines(fn)[1]}
    except (TypeError, OSError, AttributeError):
        try:
            return {"file": os.path.abspath(inspect.getsourcefile(obj) or ""), "line": inspect.getsourcelines(obj)[1]}
        except (TypeError, OSError):
            return {}


def describe_target(package: str, target: str) -> dict[str, Any]:
    try:
        obj = resolve(package, target)
    except BaseException as exc:  # noqa: BLE001 - anything user code raises is a result
        return {"found": False, "error": describe_error(exc)}
    out: dict[str, Any] = {"found": True, "callable": callable(obj), "kind": type(obj).__name__, **_where(obj)}
    if callable(obj):
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError) as exc:
            out["signature_error"] = str(exc)
        else:
            out["signature"] = plain(sig)
            out["params"] = [{"name": p.name, "kind": p.kind.name, "required": p.default is p.empty}
                             for p in sig.parameters.values()]
    return out


def bind_call(package: str, call: dict[str, Any]) -> dict[str, Any]:
    try:
        sig = signature_of(package, call["target"], call.get("method", False))
    except BaseException as exc:  # noqa: BLE001
        return {"id": call["id"], "ok": None, "error": f"{type(exc).__name__}: {exc}"}
    args = [object()] * call["nargs"]
    kwargs = {k: object() for k in call["keywords"]}
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        msg = str(exc)
        lenient = (call.get("star") or call.get("dstar")) and msg.startswith("missing a required")
        if call.get("star") and "too many positional" in msg and not call["nargs"]:
            lenient = True
        if not lenient:
            var_kw = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
            unknown = [k for k in call["keywords"] if k not in sig.parameters and not var_kw]
            if unknown:  # the root cause; bind() would only say what is missing because of it
                close = difflib.get_close_matches(unknown[0], list(sig.parameters), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                msg = f"got an unexpected keyword argument '{unknown[0]}'{hint}"
            return {"id": call["id"], "ok": False, "error": msg, "signature": plain(sig)}
    return {"id": call["id"], "ok": True, "signature": plain(sig)}


def _hints(obj: Any) -> dict[str, Any]:
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        return typing.get_type_hints(target)
    except Exception:  # noqa: BLE001 - unresolvable annotations: nothing to compare
        return {}


def _members(tp: Any) -> list[Any] | None:
    """The alternatives of a type (Union/Optional expanded); None when the type says nothing checkable."""
    if tp is None or tp is Any or tp is inspect.Parameter.empty or isinstance(tp, (str, typing.TypeVar)):
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        out: list[Any] = []
        for a in typing.get_args(tp):
            m = _members(a)
            if m is None:
                return None
            out.extend(m)
        return out
    if origin is not None:
        return [origin] if isinstance(origin, type) else None
    return [tp] if isinstance(tp, type) else None


def compatible(produced: Any, expected: Any) -> bool | None:
    """True/False when both annotations are classes (or unions of classes); None when unknown."""
    p, e = _members(produced), _members(expected)
    if p is None or e is None:
        return None
    if object in e:
        return True
    for cls in p:
        if cls is type(None) and type(None) not in e:
            continue  # Optional results are a runtime concern, not an integration mismatch
        if not any(isinstance(ex, type) and issubclass(cls, ex) for ex in e):
            return False
    return True


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__qualname__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__qualname__}"
    return repr(tp).replace("typing.", "")


def check_link(package: str, link: dict[str, Any]) -> dict[str, Any]:
    out = {"id": link["id"], "ok": None}
    try:
        producer = resolve(package, link["producer"])
        sig = signature_of(package, link["consumer"], link.get("method", False))
        consumer = resolve(package, link["consumer"])
    except BaseException:  # noqa: BLE001 - reported by the import and call checks
        return out
    if link.get("attr"):
        if not inspect.isclass(producer):
            return out
        try:
            produced = typing.get_type_hints(producer).get(link["attr"])
        except Exception:  # noqa: BLE001
            return out
    elif inspect.isclass(producer):
        produced = producer
    else:
        produced = _hints(producer).get("return")
    params = list(sig.parameters.values())
    param = None
    if link.get("keyword"):
        param = sig.parameters.get(link["keyword"])
    elif link.get("position") is not None and link["position"] < len(params):
        cand = params[link["position"]]
        if cand.kind in (cand.POSITIONAL_ONLY, cand.POSITIONAL_OR_KEYWORD):
            param = cand
    if param is None:
        return out
    expected = _hints(consumer).get(param.name)
    verdict = compatible(produced, expected)
    out.update(ok=verdict, param=param.name, produced=_type_name(produced), expected=_type_name(expected))
    return out


def accepted_values(package: str, target: str) -> dict[str, Any]:
    try:
        obj = resolve(package, target)
    except BaseException as exc:  # noqa: BLE001
        return {"kind": "error", "error": f"{type(exc).__name__}: {exc}"}
    where = {}
    if isinstance(obj, bool):
        return {"kind": "error", "error": f"{target} is a bool, not a collection or a count"}
    if isinstance(obj, int):
        return {"kind": "range", "start": 0, "stop": obj, **where}
    if isinstance(obj, range):
        return {"kind": "range", "start": obj.start, "stop": obj.stop, "step": obj.step}
    if isinstance(obj, dict):
        obj = list(obj.keys())
    if isinstance(obj, (list, tuple, set, frozenset)):
        values = [v for v in obj if isinstance(v, (str, int, float, bool)) or v is None]
        return {"kind": "set", "values": sorted(values, key=repr)}
    return {"kind": "error", "error": f"{target} is a {type(obj).__name__}, not a collection or a count"}


def _rss_peak_mb() -> float | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def smoke(package: str, spec: dict[str, Any]) -> None:
    emit("smoke_start", entry=spec["entry"])
    result: dict[str, Any] = {"ok": False}
    start = time.perf_counter()
    try:
        fn = resolve(package, spec["entry"])
    except BaseException as exc:  # noqa: BLE001
        result["error"] = describe_error(exc)
        result["import_seconds"] = round(time.perf_counter() - start, 3)
        emit("smoke_end", **result)
        return
    result["import_seconds"] = round(time.perf_counter() - start, 3)
    rss_before = _rss_peak_mb()
    start = time.perf_counter()
    try:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        value = fn(**spec.get("kwargs", {}))
        result["ok"] = True
        result["returned"] = type(value).__name__
        if isinstance(value, dict):
            result["keys"] = sorted(map(str, value))[:30]
            status = value.get("status")
            if isinstance(status, str):
                result["status"] = status
                if status.lower() in ("failed", "error", "crashed"):
                    result["ok"] = False
                    result["error"] = {"type": "FailedStatus", "message": f"returned status {status!r}"
                                       + (f": {value.get('error')}" if value.get("error") else "")}
    except BaseException as exc:  # noqa: BLE001 - the smoke run reports every failure
        result["error"] = describe_error(exc)
    result["seconds"] = round(time.perf_counter() - start, 3)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        result["cuda_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
        result["cuda_left_mb"] = round(torch.cuda.memory_allocated() / 2**20, 1)
    result["rss_before_mb"], result["rss_peak_mb"] = rss_before, _rss_peak_mb()
    open_runs = []
    mlflow = sys.modules.get("mlflow")
    if mlflow is not None:
        try:
            run = mlflow.active_run()
            if run is not None:
                open_runs.append(f"mlflow run {run.info.run_id}")
                mlflow.end_run(status="FAILED")
        except Exception:  # noqa: BLE001
            pass
    wandb = sys.modules.get("wandb")
    if wandb is not None and getattr(wandb, "run", None) is not None:
        open_runs.append(f"wandb run {getattr(wandb.run, 'id', '?')}")
    result["open_runs"] = open_runs
    emit("smoke_end", **result)


def main() -> int:
    global _PROTO, _COMPONENTS_DIR
    _PROTO = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything user code prints, even from C, goes to stderr
    sys.stdout = sys.stderr
    faulthandler.enable(file=sys.stderr)
    if hasattr(faulthandler, "register") and hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)  # "where are you stuck?"
    request = json.loads(sys.stdin.read())
    package = request["package"]
    _COMPONENTS_DIR = os.path.abspath(request.get("components_dir", ""))
    tracer = _Tracer(package, request.get("block", {}))
    sys.meta_path.insert(0, tracer)
    emit("hello", python=sys.version.split()[0], pid=os.getpid())
    for name in request.get("modules", []):
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - reported by the tracer
            pass
    emit("phase", name="imports_done")
    targets = {t: describe_target(package, t) for t in request.get("targets", [])}
    emit("targets", data=targets)
    emit("calls", data=[bind_call(package, c) for c in request.get("calls", [])])
    emit("links", data=[check_link(package, link) for link in request.get("links", [])])
    emit("accepts", data={k: accepted_values(package, v) for k, v in request.get("accepts", {}).items()})
    if request.get("smoke"):
        smoke(package, request["smoke"])
    emit("done")
    _PROTO.close()
    return 0


if __name__ == "__main__":
    try:
        code = main()
    except BaseException:  # noqa: BLE001 - a probe bug: say so on stderr, exit non-zero
        traceback.print_exc()
        code = 70
    sys.stderr.flush()
    os._exit(code)  # skip interpreter teardown: user atexit hooks and threads cannot hang the probe
