"""``jprewrite flamegraph`` in a real browser: headless Chromium opens the file offline.

The page is written from a real profile; Chromium (Debian's ``chromium``, installed here when
missing and we are root) loads it from disk through the DevTools protocol. Checked: no request
leaves the file (d3 and d3-flame-graph are inlined), the root and a known frame are drawn as
SVG frames of real width, a search highlights the frame (and only matching frames), a click
on the metric switch redraws with another metric, reset zoom works, and a screenshot of the
result is kept (its path printed).
"""

from __future__ import annotations

import pytest

from jprewrite.cli.main import main as jprewrite_main

from support.cdp import Browser, ensure_chromium
from support.profile_runs import profile_of

HIGHLIGHT = "#E600E6"  # d3-flame-graph's colour for search matches


@pytest.fixture(scope="module")
def chromium():
    path, why = ensure_chromium()
    if path is None:
        pytest.skip(why)
    return path


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    work = tmp_path_factory.mktemp("flamegraph")
    html = work / "shop.html"
    assert jprewrite_main(["flamegraph", str(profile_of(work)), "-o", str(html)]) == 0
    return html


@pytest.fixture
def browser(chromium, tmp_path):
    b = Browser(chromium, tmp_path / "chromium-profile")
    yield b
    b.close()


def _frame(name: str) -> str:
    """JavaScript: facts about the drawn frame named ``name`` (None if not drawn)."""
    return f"""(() => {{
        const g = [...document.querySelectorAll('#chart g.frame')].find(e => e.getAttribute('name') === {name!r});
        if (!g) return null;
        const r = g.querySelector('rect');
        return {{width: r.getBoundingClientRect().width, fill: r.getAttribute('fill'),
                 label: g.querySelector('foreignObject div').textContent}};
    }})()"""


def test_flamegraph_renders_and_searches_offline(browser, page, tmp_path):
    browser.call("Network.enable")
    browser.call("Page.enable")
    browser.call("Page.navigate", url=page.as_uri())
    browser.wait_for("document.querySelectorAll('#chart g.frame').length > 5")

    # rects grow to their width in a transition: wait for it
    browser.wait_for(f"({_frame('<root>')})?.width > 300", timeout=10)
    known = browser.wait_for(f"(f => f && f.width > 0 && f)({_frame('Main.checkout')})", timeout=10)
    assert known["fill"] != HIGHLIGHT and known["label"] in ("", "Main.checkout"), known
    assert browser.evaluate(_frame("Main.main"))["width"] >= known["width"]
    # overloads keep their arguments; the table lists the hottest contexts
    assert browser.evaluate(_frame("Main.work(int)")) is not None
    assert browser.evaluate("document.querySelectorAll('#hot tr').length") > 5

    # a search typed into the box highlights the frame, and not the others
    browser.evaluate("document.getElementById('search').focus()")
    browser.call("Input.insertText", text="checkout")
    browser.wait_for(f"({_frame('Main.checkout')}).fill === {HIGHLIGHT!r}", timeout=10)
    assert browser.evaluate(_frame("Main.fib"))["fill"] != HIGHLIGHT
    assert browser.evaluate("document.getElementById('found').textContent").startswith("1 frames match"), (
        browser.evaluate("document.getElementById('found').textContent")
    )
    shot = browser.screenshot(tmp_path / "flamegraph-search.png")
    print(f"\nflame-graph screenshot (search 'checkout'): {shot}")
    assert shot.stat().st_size > 10_000

    # the metric switch redraws with calls; reset zoom after a click on a frame
    browser.evaluate("document.querySelector('#metrics button[data-metric=calls]').click()")
    browser.wait_for("document.getElementById('total').textContent.endsWith(' calls')", timeout=10)
    browser.evaluate("""document.querySelector('#chart g.frame[name="Main.checkout"]')
                        .dispatchEvent(new MouseEvent('click', {bubbles: true}))""")
    browser.wait_for(f"({_frame('Main.checkout')}).width > 600", timeout=10)
    browser.evaluate("document.getElementById('reset').click()")
    browser.wait_for(f"({_frame('Main.checkout')}).width < 600", timeout=10)

    # nothing but the file itself was requested
    urls = browser.requests()
    assert urls and all(u.startswith(("file:", "data:", "about:")) for u in urls), urls
    print(f"flame-graph page: {page}")
