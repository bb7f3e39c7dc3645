"""Map (cell index, line in the cell) to the line of the `.ipynb` file that holds it, for SARIF regions.

nbformat writes each source line as one JSON string on its own line (`"source": [` then one line each); a
cell whose source is one JSON string maps every line to that string's line. Anything else maps to nothing,
and the SARIF result then carries no region (still valid) but keeps the cell in its properties.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


def _decode(line: str) -> object:
    try:
        return json.loads(line.strip().rstrip(","))
    except ValueError:
        return None


@lru_cache(maxsize=64)
def _source_starts(path: str, mtime_ns: int) -> tuple[tuple[int, int], ...]:
    """Per cell: (1-based file line of its `"source"` key, number of list lines or 0 for one string)."""
    del mtime_ns  # part of the cache key only
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
        cells = json.loads(text).get("cells") or []
    except (OSError, ValueError, AttributeError):
        return ()
    lines = text.splitlines()
    out: list[tuple[int, int]] = []
    pos = 0
    for cell in cells:
        src = cell.get("source") if isinstance(cell, dict) else None
        found = (-1, 0)
        for i in range(pos, len(lines)):
            stripped = lines[i].strip()
            if not stripped.startswith('"source":'):
                continue
            rest = stripped[len('"source":') :].strip()
            if (
                isinstance(src, list)
                and rest.startswith("[")
                and (not src or (i + 1 < len(lines) and _decode(lines[i + 1]) == src[0]))
            ):
                found = (i + 1, len(src))
            elif isinstance(src, str) and _decode(rest) == src:
                found = (i + 1, 0)
            else:
                continue
            pos = i + 1
            break
        out.append(found)
    return tuple(out)


def ipynb_file_line(path: str, cell: int, line: int) -> int | None:
    """The 1-based line of `path` holding line `line` of cell `cell`, or None when it cannot be told."""
    try:
        starts = _source_starts(path, Path(path).stat().st_mtime_ns)
    except OSError:
        return None
    if not 0 <= cell < len(starts):
        return None
    key_line, n = starts[cell]
    if key_line < 0:
        return None
    if n == 0:
        return key_line
    return key_line + line if 1 <= line <= n else None
