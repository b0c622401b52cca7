"""What a judge on a phone met (session 11), as the pages' HTML and JSON show it; the browser half is in
test_browser_phone.py.

Each test names what the judge saw."""
from __future__ import annotations

from bs4 import BeautifulSoup


def soup(response):
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


# -- 4: a suggestion names its document shortly --------------------------------------------------
def test_autocomplete_names_each_document_shortly(cr_client):
    """Each suggestion repeated "Magic: The Gathering Comprehensive Rules", two lines of a phone's list."""
    shorts = {s["doc"]: s["document_short"] for q in ("702.1", "the meta", "token cards", "nut")
              for s in cr_client.get("/api/autocomplete", query_string={"q": q}).get_json()}
    assert shorts["cr"] == "CR"
    assert shorts["treachery"] == "Treachery"
    assert shorts["uncommander"] == "UnCommander"
    assert shorts[None] == "search"  # a phrase the documents repeat
    first = cr_client.get("/api/autocomplete?q=702.1").get_json()[0]
    assert first["document"] == "Magic: The Gathering Comprehensive Rules"  # the full title stays


# -- 5: the short link and the copy buttons sit below the heading --------------------------------
def test_sharing_a_rule_sits_below_its_heading(cr_client):
    """On /cr/702.19b the copy buttons were at the page's foot, two screens below the heading on a phone."""
    page = soup(cr_client.get("/cr/702.19b"))
    share = page.select_one("article h1 ~ p.share")
    assert share is not None
    assert share.select_one("a.short-link")["href"] == "/r/702.19b"
    assert share.select_one("button.copy-chat") and share.select_one("button.copy-short")
    order = [el for el in page.select("article h1, p.share, article div.text")]
    assert [el.name for el in order] == ["h1", "p", "div"]  # before the rule's words
    assert page.select_one("aside.tools a.permalink")  # the permalink and source stay at the foot
    assert not page.select("aside.tools button")


# -- 6: a history's heading ---------------------------------------------------------------------
def test_a_history_heading_says_what_the_rule_is(hclient):
    """It read "727.2  — across releases": two spaces and no title (727.2 has none; it stands under 727)."""
    def h1(number):
        return soup(hclient.get(f"/cr/{number}/history")).select_one("h1").get_text()

    # a rule without a title is headed with its own first words (issue 32: "903.8 Commander" named 903's title), and
    # says the rule it stands under just below
    assert h1("727.2") == "727.2 All Magic cards involved in the game that … — across releases"
    assert h1("702.19") == "702.19 Trample — across releases"
    assert h1("702.19b") == "702.19b The controller of an attacking creature with trample … — across releases"
    under = soup(hclient.get("/cr/727.2/history")).select_one("h1 + p.under a")
    assert (under["href"], under.get_text()) == ("/cr/727", "727 Restarting the Game")
    twin = hclient.get("/api/cr/727.2/history").get_json()
    assert twin["title"] is None  # the rule's own, and the heading it stands under
    assert twin["under"] == {"number": "727", "title": "Restarting the Game", "url": "/cr/727"}


# -- 7: the releases' table ----------------------------------------------------------------------
def test_the_releases_table_puts_each_diff_by_its_date(hclient):
    """The diff link was the 7th column, off a phone's screen."""
    rows = soup(hclient.get("/cr/releases")).select("table.releases tbody tr")
    assert len(rows) == 62
    for row in rows[:-1]:  # the oldest release has nothing before it
        cells = row.find_all("td")
        assert cells[0].time and cells[1].a.get_text() == "diff", row
    assert soup(hclient.get("/cr/releases")).select("table.releases th")[1].get_text() == "changes"
