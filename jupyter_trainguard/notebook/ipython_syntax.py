"""Turn a cell's IPython syntax (magics, shell escapes, help) into plain Python with a line map."""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

# Cell magics whose body is ordinary Python that runs in the user namespace.
PYTHON_BODY_MAGICS = frozenset(
    {
        "time", "timeit", "capture", "prun", "debug", "memit", "mprun", "guarded_train",
        "tg_estimate", "trainguard", "px", "autopx", "spark", "pyinstrument", "scalene",
        "snakeviz", "heat", "record", "python", "python3", "ipytest", "tensorboard",
        "wandb", "cache", "notify",  # W&B's run display, ipycache, jupyternotify: the body runs as it is
    }
)

# Line magics (IPython's, ipykernel's and common extensions') and shell aliases that IPython runs without the `%`
# when a cell is that one line ("automagic"): `pip install x`, `cd data`, `matplotlib inline`.
AUTOMAGICS = frozenset(
    {
        "alias", "alias_magic", "autoawait", "autocall", "automagic", "autosave", "bookmark", "cat", "cd", "clear",
        "colors", "conda", "config", "connect_info", "cp", "debug", "dhist", "dirs", "doctest_mode", "ed", "edit",
        "env", "gui", "hist", "history", "killbgscripts", "ldir", "less", "lf", "lk", "ll", "load", "load_ext",
        "loadpy", "logoff", "logon", "logstart", "logstate", "logstop", "ls", "lsmagic", "lx", "macro", "magic",
        "mamba", "man", "matplotlib", "micromamba", "mkdir", "more", "mv", "notebook", "page", "pastebin", "pdb",
        "pdef", "pdoc", "pfile", "pinfo", "pinfo2", "pip", "popd", "pprint", "precision", "prun", "psearch",
        "psource", "pushd", "pwd", "pycat", "pylab", "qtconsole", "quickref", "recall", "rehashx", "reload_ext",
        "rep", "rerun", "reset", "reset_selective", "rm", "rmdir", "run", "save", "sc", "set_env", "store", "sx",
        "system", "tb", "time", "timeit", "unalias", "unload_ext", "uv", "who", "who_ls", "whos", "xdel", "xmode",
        "autoreload", "aimport", "tensorboard", "memit", "mprun", "lprun",
    }
)
_AUTOMAGIC_HEAD = re.compile(r"^([A-Za-z_][\w]*)(?:\s|$)")

MAX_TRANSFORMER_ESCAPES = 64
MAX_TRANSFORMER_CHARS = 200_000
_ESCAPE_RE = re.compile(r"^[ \t]*[%!?]|\?[ \t]*$|=[ \t]*[%!][A-Za-z_]", re.MULTILINE)


@lru_cache(maxsize=1)
def _transformer():
    """IPython's own cell transformer. Outside a running IPython it is loaded on its own: the module needs only the
    standard library, while `import IPython` loads the terminal, prompt_toolkit and jedi (~0.3 s per CLI run)."""
    import sys

    module = sys.modules.get("IPython.core.inputtransformer2")
    if module is None and "IPython" not in sys.modules:
        module = _standalone_inputtransformer2()
    if module is None:
        from IPython.core import inputtransformer2 as module
    return module.TransformerManager()


def _standalone_inputtransformer2():
    """`IPython/core/inputtransformer2.py` loaded under a private name, without running `IPython/__init__`."""
    import importlib.util
    import sys

    name = "_trainguard_ipython_inputtransformer2"
    if name in sys.modules:
        return sys.modules[name]
    try:
        spec = importlib.util.find_spec("IPython")  # finds the package without importing it
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        for folder in folders:
            path = f"{folder}/core/inputtransformer2.py"
            sub = importlib.util.spec_from_file_location(name, path)
            if sub is None or sub.loader is None:
                continue
            module = importlib.util.module_from_spec(sub)
            sys.modules[name] = module
            try:
                sub.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
            if hasattr(module, "TransformerManager"):
                return module
    except Exception:  # noqa: BLE001 - an IPython laid out differently: import it the usual way
        return None
    return None


def split_cell_magic(source: str) -> tuple[str | None, str, int]:
    """Return (magic name, body, line offset of the body) for a `%%magic` cell, else (None, source, 0)."""
    stripped = source.lstrip("\n")
    lead = len(source) - len(stripped)
    if not stripped.startswith("%%"):
        return None, source, 0
    first, _, body = stripped.partition("\n")
    name = first[2:].split(None, 1)[0] if len(first) > 2 else ""
    return name or None, body, source[:lead].count("\n") + 1


@lru_cache(maxsize=4096)
def _to_python_cached(source: str) -> tuple[str | None, tuple[int, ...], str | None]:
    code, line_map, magic = _to_python(source)
    return code, tuple(line_map), magic


def to_python(source: str) -> tuple[str | None, list[int], str | None]:
    """Return (python code or None when the cell is not Python, line map, cell magic name).

    The line map gives, for each line of the returned code, the 1-based line of `source`. Memoised by text.
    """
    if len(source) > 100_000:
        return _to_python(source)
    code, line_map, magic = _to_python_cached(source)
    return code, list(line_map), magic


def _to_python(source: str) -> tuple[str | None, list[int], str | None]:
    exported = _exported_cell_magic(source) if "run_cell_magic" in source else None
    if exported is not None:  # `%%time` as a script export writes it: the body is the string argument
        name, body, line = exported
        if name not in PYTHON_BODY_MAGICS:
            return None, [], name
        code, line_map, _ = _to_python(body)
        return code, [line] * len(line_map), name
    magic, body, offset = split_cell_magic(source)
    if magic is not None and magic not in PYTHON_BODY_MAGICS:
        return None, [], magic
    code = _dedent_first_line(body)
    if magic is None:
        code = _automagic(code)
    n_lines = code.count("\n") + 1
    line_map = [offset + i + 1 for i in range(n_lines)]
    escapes = len(_ESCAPE_RE.findall(code))
    if not escapes:
        return code, line_map, magic
    if escapes > MAX_TRANSFORMER_ESCAPES or len(code) > MAX_TRANSFORMER_CHARS:
        transformed = _neutralise_escapes(code)  # IPython's transformer is quadratic in the number of escapes
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                transformed = _transformer().transform_cell(code)
        except Exception:  # IPython can raise on odd input
            transformed = _neutralise_escapes(code)
    transformed = transformed[:-1] if transformed.endswith("\n") and not code.endswith("\n") else transformed
    new_lines = transformed.count("\n") + 1
    if new_lines != n_lines:  # continuation lines were merged: keep the map monotone and in range
        line_map = [line_map[min(i, n_lines - 1)] for i in range(new_lines)]
    return transformed, line_map, magic


def _exported_cell_magic(source: str) -> tuple[str, str, int] | None:
    """(magic name, body, 1-based line) when the cell is one `get_ipython().run_cell_magic('time', '', "...")`
    statement, the form `jupyter nbconvert --to script` and IPython's own exports give a `%%magic` cell."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "run_cell_magic"
            and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name)
            and call.func.value.func.id == "get_ipython" and len(call.args) == 3 and not call.keywords):
        return None
    if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args):
        return None
    return call.args[0].value, call.args[2].value, call.lineno


def _dedent_first_line(code: str) -> str:
    """IPython's `leading_indent`: when the first non-blank line is indented, that indentation is removed from
    every line that starts with it (a cell pasted with one leading space runs). Line for line, so the map holds."""
    lines = code.split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    space = first[: len(first) - len(first.lstrip(" \t"))]
    if not space:
        return code
    return "\n".join(ln[len(space):] if ln.startswith(space) else ln for ln in lines)


def _automagic(code: str) -> str:
    """IPython's automagic: a cell that is one line (after its leading blank lines), starting with the name of a
    line magic or shell alias and not valid Python (`pip install x`), runs as that magic. Longer cells are not
    prefiltered by IPython, and neither are lines that parse as Python, so their errors stay errors."""
    lines = code.split("\n")
    lead = 0
    while lead < len(lines) and not lines[lead].strip():
        lead += 1
    rest = "\n".join(lines[lead:])
    if lead == len(lines) or len(rest.splitlines()) != 1:
        return code
    head = _AUTOMAGIC_HEAD.match(lines[lead])
    if head is None or head.group(1) not in AUTOMAGICS:
        return code
    try:
        compile(lines[lead], "<cell>", "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST
        return code
    except (SyntaxError, ValueError):
        pass
    lines[lead] = "%" + lines[lead]
    return "\n".join(lines)


# compiled on first use (by `re`, which keeps them): only cells with very many escapes come here
_TIMED = r"^(\s*)%(?:time|timeit|prun|memit)(?:\s+-\S+)*\s+(.*)$"
_ASSIGNED = r"^(\s*)([A-Za-z_][\w\s,\.\[\]\(\)]*?)\s*=\s*[%!].*$"


def _neutralise_escapes(code: str) -> str:
    """A linear, line-for-line stand-in for IPython's transformer: timed statements keep their Python,
    assignments from magics/shell become `None`, other escapes become `pass`."""
    out = []
    for line in code.split("\n"):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        timed = re.match(_TIMED, line)
        assigned = re.match(_ASSIGNED, line)
        if timed:
            line = timed.group(1) + timed.group(2)
        elif stripped[:1] in ("%", "!", "?") or (stripped.endswith("?") and not stripped.startswith("#")):
            line = indent + "pass"
        elif assigned:
            line = f"{assigned.group(1)}{assigned.group(2)} = None"
        out.append(line)
    return "\n".join(out)
