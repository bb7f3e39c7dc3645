"""A static index of the shared components package: signatures and dict keys, read from source, never imported."""

from __future__ import annotations

import ast
from pathlib import Path

from ..findings import FACTORY, FrozenRecord, Record, factory


class Signature(FrozenRecord):
    """The parameters of a function (or a class's `__init__` without `self`)."""

    name: str
    positional: tuple[str, ...]  # positional-or-keyword and positional-only, in order
    required: frozenset[str]
    keyword_only: tuple[str, ...] = ()
    positional_only: frozenset[str] = frozenset()
    var_args: bool = False
    var_kwargs: bool = False
    path: str = ""
    line: int = 0

    def __init__(self, name: str, positional: tuple[str, ...], required: frozenset[str],
                 keyword_only: tuple[str, ...] = (), positional_only: frozenset[str] = frozenset(),
                 var_args: bool = False, var_kwargs: bool = False, path: str = "", line: int = 0) -> None:
        self.__dict__.update(name=name, positional=positional, required=required, keyword_only=keyword_only,
                             positional_only=positional_only, var_args=var_args, var_kwargs=var_kwargs, path=path,
                             line=line)

    def describe(self) -> str:
        parts = list(self.positional)
        if self.var_args:
            parts.append("*args")
        elif self.keyword_only:
            parts.append("*")
        parts += list(self.keyword_only)
        if self.var_kwargs:
            parts.append("**kwargs")
        return f"{self.name}({', '.join(parts)})"

    def bind_problems(self, n_positional: int, keywords: list[str], has_star: bool, has_dstar: bool) -> list[str]:
        """What is wrong with a call of this shape; [] when it binds. Mirrors `inspect.Signature.bind`."""
        problems: list[str] = []
        if n_positional > len(self.positional) and not self.var_args:
            problems.append(f"takes {len(self.positional)} positional argument(s) but {n_positional} were given")
        filled = set(self.positional[:n_positional])
        names = set(self.positional) | set(self.keyword_only)
        for kw in keywords:
            if kw in self.positional_only:
                problems.append(f"'{kw}' is positional-only")
            elif kw not in names and not self.var_kwargs:
                close = _closest(kw, names)
                hint = f" (did you mean '{close}'?)" if close else ""
                problems.append(f"got an unexpected keyword argument '{kw}'{hint}")
            elif kw in filled:
                problems.append(f"got multiple values for argument '{kw}'")
            filled.add(kw)
        if not (has_star or has_dstar):
            missing = sorted(self.required - filled, key=lambda n: (n not in self.positional, n))
            if missing:
                problems.append("missing required argument(s): " + ", ".join(f"'{m}'" for m in missing))
        return problems


def _closest(name: str, candidates: set[str]) -> str | None:
    import difflib

    match = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return match[0] if match else None


def signature_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, path: str, drop_self: bool = False) -> Signature:
    a = fn.args
    posonly = [x.arg for x in a.posonlyargs]
    regular = [x.arg for x in a.args]
    positional = posonly + regular
    n_defaults = len(a.defaults)
    required = set(positional[: len(positional) - n_defaults])
    kwonly = [x.arg for x in a.kwonlyargs]
    required |= {k for k, d in zip(kwonly, a.kw_defaults) if d is None}
    if drop_self and positional:
        required.discard(positional[0])
        positional = positional[1:]
        posonly = posonly[1:] if posonly else posonly
    return Signature(
        name=fn.name, positional=tuple(positional), required=frozenset(required), keyword_only=tuple(kwonly),
        positional_only=frozenset(posonly), var_args=a.vararg is not None, var_kwargs=a.kwarg is not None,
        path=path, line=fn.lineno,
    )


class ModuleIndex(Record):
    """One module of the components folder: its functions, classes, dict keys and tuples."""

    name: str
    path: str
    functions: dict[str, Signature] = factory(dict)
    classes: dict[str, Signature | None] = factory(dict)  # None: no __init__ found
    dict_keys: dict[str, tuple[str, ...]] = factory(dict)
    tuples: dict[str, tuple] = factory(dict)
    error: str | None = None

    def __init__(self, name: str, path: str, functions: dict[str, Signature] = FACTORY,
                 classes: dict[str, Signature | None] = FACTORY, dict_keys: dict[str, tuple[str, ...]] = FACTORY,
                 tuples: dict[str, tuple] = FACTORY, error: str | None = None) -> None:
        self.name = name
        self.path = path
        self.functions = {} if functions is FACTORY else functions
        self.classes = {} if classes is FACTORY else classes
        self.dict_keys = {} if dict_keys is FACTORY else dict_keys
        self.tuples = {} if tuples is FACTORY else tuples
        self.error = error


class ComponentIndex(Record):
    """Every module of the components folder, by module name (`experiment_runner`)."""

    root: Path
    package: str
    modules: dict[str, ModuleIndex] = factory(dict)

    def __init__(self, root: Path, package: str, modules: dict[str, ModuleIndex] = FACTORY) -> None:
        self.root = root
        self.package = package
        self.modules = {} if modules is FACTORY else modules

    def resolve(self, qualname: str) -> tuple[ModuleIndex, str] | None:
        """Map `notebooks.components.runner.fn` (or `components.runner.fn`, `runner.fn`) to (module, attr)."""
        parts = qualname.split(".")
        for i in range(len(parts) - 1):
            if parts[i] in self.modules:
                prefix = ".".join(parts[:i])
                pkg_tail = self.package.split(".")
                if prefix and not self.package.endswith(prefix) and prefix.split(".")[-1] not in pkg_tail:
                    continue
                if i + 2 == len(parts):
                    return self.modules[parts[i]], parts[i + 1]
        return None

    def dict_keys(self, ref: str) -> tuple[str, ...] | None:
        mod, _, name = ref.rpartition(".")
        m = self.modules.get(mod.split(".")[-1])
        return None if m is None else m.dict_keys.get(name)


_CACHE: dict[tuple, ComponentIndex] = {}


def index_components(root: Path, package: str) -> ComponentIndex:
    files = sorted(root.glob("*.py")) if root.is_dir() else []
    key = (str(root), package, tuple((str(f), f.stat().st_mtime_ns) for f in files))
    if key in _CACHE:
        return _CACHE[key]
    idx = ComponentIndex(root=root, package=package)
    for f in files:
        if f.name == "__init__.py":
            continue
        idx.modules[f.stem] = _index_module(f)
    _CACHE[key] = idx
    return idx


def _index_module(path: Path) -> ModuleIndex:
    m = ModuleIndex(name=path.stem, path=str(path))
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError) as exc:
        m.error = f"cannot parse {path.name}: {exc}"
        return m
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            m.functions[node.name] = signature_of(node, str(path))
        elif isinstance(node, ast.ClassDef):
            init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
            m.classes[node.name] = signature_of(init, str(path), drop_self=True) if init else None
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if not isinstance(t, ast.Name) or node.value is None:
                    continue
                if isinstance(node.value, ast.Dict):
                    keys = [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
                    if len(keys) == len(node.value.keys):
                        m.dict_keys[t.id] = tuple(str(k) for k in keys)
                elif isinstance(node.value, (ast.Tuple, ast.List)):
                    try:
                        m.tuples[t.id] = tuple(ast.literal_eval(node.value))
                    except (ValueError, SyntaxError):
                        pass
    return m
