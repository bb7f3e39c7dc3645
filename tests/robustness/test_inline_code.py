"""Finding messages render Markdown code spans as <code> in HTML, and nothing else becomes markup."""

from __future__ import annotations

from jupyter_trainguard.display.bundle import inline_code


def test_code_spans_render_and_stay_escaped():
    html = inline_code("`scaler.fit_transform(X)` cell 4 → split cell 5 → `model.score(X_test, …)` cell 8")
    assert html.count("<code>") == 2 and "<code>scaler.fit_transform(X)</code>" in html
    hostile = inline_code("`<script>alert(1)</script>` and <b>bold</b> and an `unclosed span")
    assert "<script>" not in hostile and "<b>" not in hostile
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in hostile and "`unclosed span" in hostile
