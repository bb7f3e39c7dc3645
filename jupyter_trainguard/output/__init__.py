"""Renderers of scan results: text, JSON, SARIF 2.1.0 and Markdown."""

from __future__ import annotations

from collections.abc import Callable

from ..findings import Report

FORMATS = ("text", "json", "sarif", "markdown")


def render(fmt: str, reports: list[Report], **kw) -> str:
    renderer: Callable[..., str]
    if fmt == "text":
        from .text import render_text as renderer
    elif fmt == "json":
        from .json_format import render_json as renderer
    elif fmt == "sarif":
        from .sarif import render_sarif as renderer
    elif fmt == "markdown":
        from .markdown import render_markdown as renderer
    else:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderer(reports, **kw)
