"""Write changed cell sources back into `.ipynb` text by splicing: every byte outside the edited `source`
values (outputs, metadata, ids, other cells, the file's own JSON layout) stays as it was.

The structure down to `cells[i].source` is walked by hand; every other value is skipped with the C JSON decoder,
so large outputs cost little.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field

_NON_CONTROL_ESCAPE = re.compile(r"\\u(?!00[01][0-9a-fA-F])[0-9a-fA-F]{4}")

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class SpliceError(ValueError):
    """The notebook's JSON is not laid out as expected; nothing is written."""


@dataclass
class CellSpan:
    start: int
    end: int
    source: tuple[int, int] | None = None  # span of the source value
    keys: list[str] = field(default_factory=list)
    cell_id: str | None = None


@dataclass
class NotebookSpans:
    cells_open: int  # offset just after "["
    cells_close: int  # offset of "]"
    cells: list[CellSpan]
    nbformat_minor: int | None


def _skip_ws(text: str, i: int) -> int:
    return _WS.match(text, i).end()


def _string(text: str, i: int) -> tuple[str, int]:
    if text[i] != '"':
        raise SpliceError(f"expected a string at offset {i}")
    value, end = json.decoder.scanstring(text, i + 1)
    return value, end


def _value_end(text: str, i: int) -> int:
    try:
        return _DECODER.raw_decode(text, i)[1]
    except json.JSONDecodeError as exc:
        raise SpliceError(f"invalid JSON at offset {exc.pos}") from exc


def _object(text: str, i: int, on_member) -> int:
    """Walk an object starting at `text[i] == "{"`; `on_member(key, value_start)` returns the value's end or None."""
    if text[i] != "{":
        raise SpliceError(f"expected an object at offset {i}")
    i = _skip_ws(text, i + 1)
    if text[i] == "}":
        return i + 1
    while True:
        key, i = _string(text, i)
        i = _skip_ws(text, i)
        if text[i] != ":":
            raise SpliceError(f"expected ':' at offset {i}")
        i = _skip_ws(text, i + 1)
        end = on_member(key, i)
        i = _skip_ws(text, end if end is not None else _value_end(text, i))
        if text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        if text[i] == "}":
            return i + 1
        raise SpliceError(f"expected ',' or '}}' at offset {i}")


def scan(text: str) -> NotebookSpans:
    found: dict[str, object] = {}

    def top(key: str, i: int) -> int | None:
        if key == "cells":
            found["cells"] = _cells(text, i)
            return found["cells"][2]
        if key == "nbformat_minor":
            end = _value_end(text, i)
            try:
                found["minor"] = int(text[i:end])
            except ValueError:
                pass
            return end
        return None

    start = _skip_ws(text, 0)
    _object(text, start, top)
    if "cells" not in found:
        raise SpliceError("no 'cells' list")
    open_, cells, close = found["cells"]
    return NotebookSpans(open_, close - 1, cells, found.get("minor"))


def _cells(text: str, i: int) -> tuple[int, list[CellSpan], int]:
    if text[i] != "[":
        raise SpliceError("'cells' is not a list")
    open_ = i + 1
    i = _skip_ws(text, open_)
    cells: list[CellSpan] = []
    if text[i] == "]":
        return open_, cells, i + 1
    while True:
        span = CellSpan(i, -1)

        def member(key: str, j: int, span: CellSpan = span) -> int | None:
            span.keys.append(key)
            if key == "source":
                end = _value_end(text, j)
                span.source = (j, end)
                return end
            if key == "id" and text[j] == '"':
                span.cell_id, end = _string(text, j)
                return end
            return None

        span.end = _object(text, i, member)
        cells.append(span)
        i = _skip_ws(text, span.end)
        if text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        if text[i] == "]":
            return open_, cells, i + 1
        raise SpliceError(f"expected ',' or ']' at offset {i}")


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _indent_unit(text: str, spans: NotebookSpans) -> str | None:
    """The indentation step of the file ("" when it is all on one line)."""
    first = _skip_ws(text, 0) + 1
    nxt = _skip_ws(text, first)
    if "\n" not in text[first:nxt]:
        return None
    return text[_line_start(text, nxt):nxt]


def source_json(source: str, old_value: str, text: str, start: int, unit: str | None, ascii_only: bool,
                newline: str) -> str:
    """The new `source` value, written the way the old one was (list of lines or one string, same indent)."""
    if old_value.lstrip().startswith('"'):
        return json.dumps(source, ensure_ascii=ascii_only)
    lines = source.splitlines(keepends=True)
    if not lines:
        return "[]"
    items = [json.dumps(x, ensure_ascii=ascii_only) for x in lines]
    if unit is None:
        return "[" + ", ".join(items) + "]"
    key_indent = text[_line_start(text, start):start]
    key_indent = key_indent[: len(key_indent) - len(key_indent.lstrip())]
    m = re.match(r"\[[ \t]*\r?\n([ \t]*)", old_value)
    item_indent = m.group(1) if m else key_indent + unit
    return "[" + newline + ("," + newline).join(item_indent + x for x in items) + newline + key_indent + "]"


def render_cell(cell: dict, base_indent: str, unit: str | None, ascii_only: bool, newline: str,
                key_order: list[str] | None) -> str:
    if key_order:
        ordered = {k: cell[k] for k in key_order if k in cell}
        ordered.update({k: v for k, v in sorted(cell.items()) if k not in ordered})
    else:
        ordered = dict(sorted(cell.items()))
    if unit is None:
        return json.dumps(ordered, ensure_ascii=ascii_only)
    dumped = json.dumps(ordered, indent=unit, ensure_ascii=ascii_only)
    return dumped.replace("\n", newline + base_indent)


def new_cell(source: str, with_id: bool, taken: set[str]) -> dict:
    cell: dict = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                  "source": source.splitlines(keepends=True)}
    if with_id:
        while True:
            cid = uuid.uuid4().hex[:8]
            if cid not in taken:
                break
        cell["id"] = cid
    return cell


def splice(text: str, new_sources: dict[int, str], inserts: list[tuple[int, str]]) -> str:
    """Return `text` with `cells[i].source` replaced for each i in `new_sources`, and new code cells inserted
    after original cell index k (-1: at the top) for each (k, source) in `inserts`, in the given order."""
    spans = scan(text)
    unit = _indent_unit(text, spans)
    # ensure_ascii writers escape everything >= 0x7f; control characters (< 0x20) are escaped by every writer
    ascii_only = all(ord(ch) < 128 for ch in text) and _NON_CONTROL_ESCAPE.search(text) is not None
    newline = "\r\n" if "\r\n" in text else "\n"
    pieces: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for index, source in new_sources.items():
        cs = spans.cells[index]
        if cs.source is None:
            raise SpliceError(f"cell {index + 1} has no 'source'")
        s, e = cs.source
        pieces.append((s, e, source_json(source, text[s:e], text, s, unit, ascii_only, newline)))
    if inserts:
        minor = spans.nbformat_minor or 0
        ids = [c.cell_id for c in spans.cells]
        with_id = minor >= 5 and any(ids)
        taken = {i for i in ids if i}
        key_order = next((c.keys for c in spans.cells if "execution_count" in c.keys), None)
        groups: dict[int, list[str]] = {}
        for after, source in inserts:
            groups.setdefault(after, []).append(source)
        for after, sources in groups.items():
            rendered = []
            for source in sources:
                cell = new_cell(source, with_id, taken)
                if with_id:
                    taken.add(cell["id"])
                rendered.append(cell)
            pieces.append(_insertion(text, spans, after, rendered, unit, ascii_only, newline, key_order))
    out = text
    for s, e, rep in sorted(pieces, key=lambda p: (p[0], p[1]), reverse=True):
        out = out[:s] + rep + out[e:]
    return out


def _insertion(text: str, spans: NotebookSpans, after: int, cells: list[dict], unit: str | None,
               ascii_only: bool, newline: str, key_order: list[str] | None) -> tuple[int, int, str]:
    cs = spans.cells
    if cs:
        ref = cs[max(after, 0)]
        base = text[_line_start(text, ref.start):ref.start] if unit is not None else ""
        sep = text[cs[0].end:cs[1].start] if len(cs) > 1 else ("," + newline + base if unit is not None else ", ")
    else:
        base = ""
        sep = ","
    body = sep.join(render_cell(c, base, unit, ascii_only, newline, key_order) for c in cells)
    if not cs:
        return spans.cells_open, spans.cells_open, body
    if after < 0:
        return cs[0].start, cs[0].start, body + sep
    pos = cs[after].end
    return pos, pos, sep + body
