"""A phone in a real browser (Playwright driving Debian's Chromium): what a judge on a 360x740 Android met.

Served from the build with the official rules' 62 releases (diffs, histories, dated rules). Skips as
test_browser.py does where /usr/bin/chromium (or Playwright) is absent.
"""
from __future__ import annotations

import pytest

from tests.browsing import CHROMIUM, kb_serving

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
KEYBOARD = 310  # about what an on-screen keyboard covers of a 740 px screen

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM}: install it (apt-get install -y chromium) to run the browser tests",
                allow_module_level=True)  # the browser fixture (tests/conftest.py) launches it


@pytest.fixture(scope="module")
def server(history_data_dir):
    with kb_serving(history_data_dir) as url:
        yield url


@pytest.fixture()
def phone(browser, server):
    """A 360x740 Android phone with touch; ``phone(color_scheme="dark")`` for another context."""
    contexts = []

    def open_page(**options):
        context = browser.new_context(base_url=server, **{**PHONE, **options})
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        return page

    yield open_page
    for context in contexts:
        for page in context.pages:
            assert page.errors == [], f"page errors: {page.errors}"
        context.close()


# -- 1: dark mode contrast ----------------------------------------------------------------------
# WCAG's contrast ratio of every text node against the first opaque background behind it.
CONTRAST = r"""
() => {
  const rgb = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(',').map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const behind = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el.getClientRects().length) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(behind(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push({ratio: Math.round(ratio * 100) / 100, tag: el.tagName.toLowerCase(), cls: String(el.className),
              text: n.textContent.trim().slice(0, 30)});
  }
  return out;
}
"""


@pytest.mark.parametrize(("path", "judged"), [
    ("/diff/cr/2026-06-19..2026-08-07", ["ins", "del"]),  # 1.12:1 and 1.01:1
    ("/cr@2016-07-22/716.2", ["a"]),  # the "now 727.2" banner's link, 1.76:1
    ("/cr/727.2/history", ["renumbered"]),  # 3.43:1
    ("/treachery/cards/the-metamorph", ["drift"]),  # 3.07:1
    ("/cr/702.19b", []),
    ("/search?q=trample", []),
])
def test_every_text_in_dark_mode_reaches_4_5_to_1(phone, path, judged):
    page = phone(color_scheme="dark")
    page.goto(path)
    texts = page.evaluate(CONTRAST)
    assert texts
    for what in judged:  # the elements the judge measured are there and measured
        assert any(what in (t["tag"], *t["cls"].split()) for t in texts), what
    assert [t for t in texts if t["ratio"] < 4.5] == []


def test_the_history_banner_reads_in_dark_mode(phone):
    page = phone(color_scheme="dark")
    page.goto("/cr@2016-07-22/716.2")
    assert "now 727.2" in page.locator(".history-banner a").inner_text()


# -- 2: nothing scrolls sideways at 360 px -----------------------------------------------------------
LONG_QUERY = "can i respond to a morph being turned face up while it is attacking and blocked by two creatures"


@pytest.mark.parametrize("path", [
    "/",  # the big Search button was cut (366 px)
    "/cr/999.9z",  # a 404 with its big box (366 px)
    "/search?q=" + LONG_QUERY.replace(" ", "+"),  # the footer's /api/search?q=... link (418-468 px)
    "/cr/702.19b", "/cr/releases", "/cr/727.2/history", "/diff/cr/2026-06-19..2026-08-07",
    "/treachery/cards/the-metamorph", "/uncommander/token-cards/j", "/search?q=trample",
])
def test_no_page_scrolls_sideways_on_a_360_px_phone(phone, path):
    page = phone()
    page.goto(path)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360


# -- 3: tap targets -----------------------------------------------------------------------------
def _boxes(page, selector):
    return [b for b in (page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count()))
            if b]


TAP_TARGETS = ["header.top .home", "header nav a", "header input[name=q]", "header button", ".breadcrumbs a",
               ".prevnext a", "button.copy-chat", "button.copy-short"]


def test_tap_targets_are_comfortable_on_a_phone(phone):
    """Header links were 16 px tall, the search box and button 34, breadcrumbs 16 (6 px apart), previous/next
    25, the copy buttons 21."""
    page = phone()
    page.goto("/cr/702.19b")
    small = []
    for selector in TAP_TARGETS:
        boxes = _boxes(page, selector)
        assert boxes, selector
        small += [(selector, round(b["height"])) for b in boxes if b["height"] < 40]
    assert small == []
    crumbs = _boxes(page, ".breadcrumbs a")
    gaps = [b["x"] - (a["x"] + a["width"]) for a, b in zip(crumbs, crumbs[1:], strict=False) if b["y"] == a["y"]]
    assert gaps and min(gaps) >= 8


def test_a_desktop_keeps_its_tight_header(browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto("/cr/702.19b")
    assert max(b["height"] for b in _boxes(page, "header nav a, .breadcrumbs a")) < 30
    assert page.locator("header.top").bounding_box()["height"] < 70  # one row
    context.close()


# -- 4: suggestions above the on-screen keyboard -----------------------------------------------------
def test_suggestions_show_above_the_keyboard(phone):
    """On / 9 of 10 suggestions for 702.1 started below y=430 (a keyboard takes ~310 px of 740), each two lines
    ("Magic: The Gathering Comprehensive Rules" repeated)."""
    page = phone()
    for path in ("/", "/cr/999.9z"):  # a 404's page is too short to scroll its box up as it is
        page.goto(path)
        box = page.locator("main input[name=q]")
        box.tap()
        box.fill("702.1")
        options = page.locator("main .ac-list [role=option]")
        options.first.wait_for()
        page.wait_for_function("document.querySelector('main input[name=q]').getBoundingClientRect().top < 60")
        assert options.count() == 10
        for i in range(10):
            option = options.nth(i)
            assert option.locator(".ac-doc").inner_text() == "CR"
            assert option.locator(".ac-doc").get_attribute("title") == "Magic: The Gathering Comprehensive Rules"
            assert option.locator(".ac-text").inner_text()  # a few words of the rule, on the same line
            b = option.bounding_box()
            assert b["height"] < 40, (path, i)  # one line
            assert b["y"] + b["height"] <= 740 - KEYBOARD, (path, i)


def test_a_desktop_page_stays_put_while_suggesting(browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto("/")
    page.fill("main input[name=q]", "702.1")
    page.locator("main .ac-list [role=option]").first.wait_for()
    assert page.evaluate("window.scrollY") == 0
    context.close()


# -- 5: sharing a rule ------------------------------------------------------------------------------
def test_the_copy_buttons_are_on_the_first_screen(phone):
    """On /cr/702.19b they sat at the page's foot: two screens of scrolling to share a rule."""
    page = phone()
    page.goto("/cr/702.19b")
    text_top = page.locator("article .text").bounding_box()["y"]
    for selector in ("button.copy-chat", "button.copy-short", ".share a.short-link"):
        b = page.locator(selector).bounding_box()
        assert b["y"] + b["height"] <= 740, selector
        assert b["y"] < text_top, selector  # between the heading and the rule's words
    page.click("button.copy-short")
    page.wait_for_selector("button.copy-short:has-text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()").endswith("/r/702.19b")


# -- 7: the releases' table ---------------------------------------------------------------------------
def test_the_releases_table_works_on_a_phone(phone):
    """The diff link was the 7th column, off-screen; dates wrapped mid-date ("2026-08-/07")."""
    page = phone()
    page.goto("/cr/releases")
    first = page.locator("table.releases tbody tr").first
    link = first.locator("a", has_text="diff").bounding_box()
    assert link["x"] + link["width"] <= 360
    lines = page.evaluate("[...document.querySelectorAll('table.releases time')].map(t => t.getClientRects().length)")
    assert len(lines) == 62 and set(lines) == {1}
    height = page.evaluate("""[...document.querySelectorAll('table.releases time')]
                              .map(t => t.getBoundingClientRect().height)""")
    assert max(height) < 30  # one line each
