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
    }
)

MAX_TRANSFORMER_ESCAPES = 64
MAX_TRANSFORMER_CHARS = 200_000
_ESCAPE_RE = re.compile(r"^[ \t]*[%!?]|\?[ \t]*$|=[ \t]*[%!][A-Za-z_]", re.MULTILINE)


@lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


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
    magic, body, offset = split_cell_magic(source)
    if magic is not None and magic not in PYTHON_BODY_MAGICS:
        return None, [], magic
    code = body
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


_TIMED = re.compile(r"^(\s*)%(?:time|timeit|prun|memit)(?:\s+-\S+)*\s+(.*)$")
_ASSIGNED = re.compile(r"^(\s*)([A-Za-z_][\w\s,\.\[\]\(\)]*?)\s*=\s*[%!].*$")


def _neutralise_escapes(code: str) -> str:
    """A linear, line-for-line stand-in for IPython's transformer: timed statements keep their Python,
    assignments from magics/shell become `None`, other escapes become `pass`."""
    out = []
    for line in code.split("\n"):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        timed = _TIMED.match(line)
        assigned = _ASSIGNED.match(line)
        if timed:
            line = timed.group(1) + timed.group(2)
        elif stripped[:1] in ("%", "!", "?") or (stripped.endswith("?") and not stripped.startswith("#")):
            line = indent + "pass"
        elif assigned:
            line = f"{assigned.group(1)}{assigned.group(2)} = None"
        out.append(line)
    return "\n".join(out)
