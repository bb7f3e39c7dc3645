"""Rendering results in notebooks: ipywidgets panels with text/HTML/JSON-mime fallbacks."""

from .bundle import AUDIT_MIME, FINDINGS_MIME, RUN_MIME, escape, publish, widgets_available

__all__ = ["AUDIT_MIME", "FINDINGS_MIME", "RUN_MIME", "escape", "publish", "widgets_available"]
