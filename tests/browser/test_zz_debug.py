def test_dbg(page, lab):
    page.goto(f"{lab.url}/lab/tree/demo.ipynb?reset&token={lab.token}")
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=60_000)
    tab = page.locator('.lm-TabBar-tab[data-id="trainguard-panel"]')
    page.wait_for_selector('.lm-TabBar-tab[data-trainguard-count]', timeout=30000)
    print("OUTER", tab.evaluate("e => e.outerHTML"))
    print("AFTER", tab.evaluate("e => { const s = getComputedStyle(e, '::after'); return [s.content, s.color, s.fontSize, s.width, s.left, s.right, s.top, s.transform, s.position, s.background, s.lineHeight].join(' | ') }"))
    print("TABSTYLE", tab.evaluate("e => { const s = getComputedStyle(e); return [s.color, s.fontSize, s.transform, s.writingMode, s.overflow].join(' | ') }"))
    print("BAR", tab.evaluate("e => { const s = getComputedStyle(e.parentElement.parentElement); return [s.transform, s.writingMode].join(' | ') }"))
