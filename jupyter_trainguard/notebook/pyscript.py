"""Read Python-script notebooks: jupytext percent (`# %%`), jupytext light (`# +`/`# -`) and plain `.py`."""

from __future__ import annotations

import re

from .ipython_syntax import to_python
from .model import Cell, Notebook

_PERCENT = re.compile(r"^# ?%%(?!%)(.*)$")
_LIGHT_START = re.compile(r"^# \+\s*(\{.*\})?\s*$")
_LIGHT_END = re.compile(r"^# -\s*$")
_HEADER_FORMAT = re.compile(r"format_name:\s*(\w+)")


def detect_format(text: str) -> str:
    """Return "py:percent", "py:light" or "py"."""
    head = text[:4000]
    m = _HEADER_FORMAT.search(head)
    if m and m.group(1) in ("percent", "light"):
        return "py:" + m.group(1)
    if any(_PERCENT.match(line) for line in text.splitlines()):
        return "py:percent"
    if "jupytext" in head or any(_LIGHT_START.match(line) for line in text.splitlines()):
        return "py:light"
    return "py"


def is_notebook_script(text: str) -> bool:
    """A `.py` file found while walking a folder counts as a notebook only with jupytext markers."""
    return detect_format(text) != "py"


def notebook_from_script(path: str, text: str, warnings: list[str] | None = None) -> Notebook:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    fmt = detect_format(text)
    lines = text.split("\n")
    nb = Notebook(path=path, format=fmt, warnings=list(warnings or []))
    start = _skip_header(lines)
    if fmt == "py:percent":
        chunks = _percent_chunks(lines, start)
    elif fmt == "py:light":
        chunks = _light_chunks(lines, start)
    else:
        chunks = [("code", start, lines[start:])]
    for i, (kind, first, body) in enumerate(chunks):
        source = "\n".join(body).strip("\n") if kind != "code" else _trim(body)
        lead = 0
        for line in body:
            if line.strip():
                break
            lead += 1
        cell = Cell(index=i, cell_type=kind, source=source, file_line=first + 1 + lead)
        if kind == "code":
            cell.python, cell.line_map, cell.cell_magic = to_python(source)
        nb.cells.append(cell)
    return nb


def _trim(body: list[str]) -> str:
    start, end = 0, len(body)
    while start < end and not body[start].strip():
        start += 1
    while end > start and not body[end - 1].strip():
        end -= 1
    return "\n".join(body[start:end])


def _skip_header(lines: list[str]) -> int:
    """Skip a jupytext YAML header (`# ---` ... `# ---`)."""
    if lines and lines[0].strip() == "# ---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() == "# ---":
                return i + 1
    return 0


def _percent_chunks(lines: list[str], start: int) -> list[tuple[str, int, list[str]]]:
    chunks: list[tuple[str, int, list[str]]] = []
    kind, first, body = "code", start, []
    for n in range(start, len(lines)):
        m = _PERCENT.match(lines[n])
        if m:
            if any(x.strip() for x in body):
                chunks.append((kind, first, body))
            rest = m.group(1)
            kind = "markdown" if "[markdown]" in rest or "[md]" in rest else "raw" if "[raw]" in rest else "code"
            first, body = n + 1, []
        else:
            body.append(lines[n])
    if any(x.strip() for x in body):
        chunks.append((kind, first, body))
    return [(k, f, _strip_md(b) if k == "markdown" else b) for k, f, b in chunks]


def _strip_md(body: list[str]) -> list[str]:
    return [line[2:] if line.startswith("# ") else line.lstrip("#") for line in body]


def _light_chunks(lines: list[str], start: int) -> list[tuple[str, int, list[str]]]:
    """Light format: explicit `# +`/`# -` cells; otherwise paragraphs at top level split cells, and a
    paragraph made only of comments is a markdown cell."""
    chunks: list[tuple[str, int, list[str]]] = []
    n = start
    para: list[str] = []
    para_first = n

    def flush() -> None:
        nonlocal para
        if any(x.strip() for x in para):
            kind = "markdown" if all(x.startswith("#") or not x.strip() for x in para) else "code"
            chunks.append((kind, para_first, _strip_md(para) if kind == "markdown" else para))
        para = []

    while n < len(lines):
        line = lines[n]
        if _LIGHT_START.match(line):
            flush()
            body, first = [], n + 1
            n += 1
            while n < len(lines) and not _LIGHT_END.match(lines[n]):
                body.append(lines[n])
                n += 1
            chunks.append(("code", first, body))
            n += 1
            para_first = n
            continue
        if not line.strip():
            nxt = next((x for x in lines[n + 1:] if x.strip()), "")
            if not nxt[:1].isspace():
                flush()
                para_first = n + 1
                n += 1
                continue
        if not para:
            para_first = n
        para.append(line)
        n += 1
    flush()
    return chunks
