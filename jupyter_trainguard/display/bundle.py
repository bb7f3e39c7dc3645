"""One way to put a result in a cell's output so it survives everywhere.

Live JupyterLab/classic notebook with ipykernel: the ipywidgets panel. Saved notebooks, nbconvert, GitHub and
terminal IPython: the text/HTML fallback carried in the same bundle. The Lab side panel and later scans: the JSON
payload under a trainguard mime type.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

RUN_MIME = "application/vnd.trainguard.run+json"
AUDIT_MIME = "application/vnd.trainguard.audit+json"
FINDINGS_MIME = "application/vnd.trainguard.findings+json"


def escape(text: Any) -> str:
    """HTML-escape user-controlled text (cell code, column names, messages) for every HTML we emit."""
    return html.escape(str(text), quote=True)


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline_code(text: Any) -> str:
    """Escaped HTML of a message whose Markdown code spans (`X_test`) render as <code>; nothing else is markup."""
    return _CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text))


def widgets_available(shell: Any = None) -> bool:
    """Widgets render only with a kernel (ipykernel) and ipywidgets installed."""
    if shell is None:
        try:
            from IPython import get_ipython

            shell = get_ipython()
        except ImportError:
            return False
    if shell is None or getattr(shell, "kernel", None) is None:
        return False
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def publish(text: str, html_fallback: str, payload: dict[str, Any], mime: str,
            widget_factory: Callable[[], Any] | None = None, shell: Any = None) -> None:
    """Display one combined bundle: widget view (when possible) + text/plain + text/html + JSON payload."""
    from IPython.display import display

    bundle: dict[str, Any] = {}
    if widget_factory is not None and widgets_available(shell):
        try:
            box = widget_factory()
            data = box._repr_mimebundle_()
            if isinstance(data, tuple):  # (data, metadata) in some ipywidgets versions
                data = data[0]
            bundle.update(data or {})
        except Exception:  # a broken widget must not hide the result: fall back to HTML
            bundle = {}
    bundle["text/plain"] = text
    bundle["text/html"] = html_fallback
    bundle[mime] = payload
    display(bundle, raw=True)
