"""2007 rulings that no longer hold say so (issue 32, item 1): corpus/futuresight_obsolete.toml, read by the build.

EXPECTED was made by reading every ruling and general note of the Future Sight FAQ (255 rulings, 16 notes) and
writing down, for each that rests on a rule changed since 2007, the weightiest change it rests on (the table's
order): not by running the table. A change to the table or to the FAQ's parsing that flags one more or one fewer
fails here, and the review is done again.
"""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from ingest.errors import ParseError
from ingest.obsolete import flagged_by, load_obsolete

EXPECTED = {
    # general notes and their rulings
    "futuresight/notes/cycle-legendary-creatures-with-grandeur/1": "in-play",
    "futuresight/notes/cycle-pacts/3": "play-a-spell",
    "futuresight/notes/cycle-pacts/5": "play-a-spell",
    "futuresight/notes/cycle-spellshapers": "in-play",
    "futuresight/notes/cycle-spellshapers/2": "play-a-spell",
    "futuresight/notes/theme-new-twists-on-suspend": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/1": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/2": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/3": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/4": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/5": "removed-from-the-game",
    "futuresight/notes/theme-new-twists-on-suspend/6": "suspended-land",
    "futuresight/notes/theme-tapping-enchantments/1": "in-play",
    "futuresight/notes/returning-keyword-action-scry": "converted-mana-cost",
    "futuresight/notes/returning-keyword-ability-morph": "play-a-spell",
    "futuresight/notes/returning-keyword-ability-morph/1": "play-a-spell",
    "futuresight/notes/returning-keyword-ability-morph/2": "in-play",
    "futuresight/notes/returning-keyword-ability-morph/3": "play-a-spell",
    "futuresight/notes/returning-keyword-ability-morph/5": "damage-on-the-stack",
    "futuresight/notes/new-keyword-ability-lifelink/1": "lifelink-trigger",
    "futuresight/notes/new-card-type-tribal": "tribal",
    "futuresight/notes/new-card-type-tribal/1": "tribal",
    "futuresight/notes/new-card-type-tribal/2": "tribal",
    "futuresight/notes/new-card-type-tribal/3": "tribal",
    # card rulings
    "futuresight/cards/arcanum-wings/2": "in-play",
    "futuresight/cards/arcanum-wings/4": "in-play",
    "futuresight/cards/aven-mindcensor/4": "play-a-spell",
    "futuresight/cards/baru-fist-of-krosa/1": "in-play",
    "futuresight/cards/bitter-ordeal/1": "in-play",
    "futuresight/cards/bound-in-silence/1": "tribal",
    "futuresight/cards/bound-in-silence/2": "in-play",
    "futuresight/cards/bound-in-silence/4": "tribal",
    "futuresight/cards/bridge-from-below/1": "in-play",
    "futuresight/cards/chronomantic-escape/1": "in-play",
    "futuresight/cards/daybreak-coronet/2": "in-play",
    "futuresight/cards/death-rattle/4": "play-a-spell",
    "futuresight/cards/delay/1": "removed-from-the-game",
    "futuresight/cards/delay/2": "removed-from-the-game",
    "futuresight/cards/epochrasite/1": "in-play",
    "futuresight/cards/fleshwrither/1": "in-play",
    "futuresight/cards/force-of-savagery/1": "in-play",
    "futuresight/cards/glittering-wish/1": "removed-from-the-game",
    "futuresight/cards/glittering-wish/2": "play-a-spell",
    "futuresight/cards/grave-peril/2": "in-play",
    "futuresight/cards/grave-peril/3": "in-play",
    "futuresight/cards/grave-scrabbler/1": "play-a-spell",
    "futuresight/cards/grave-scrabbler/2": "in-play",
    "futuresight/cards/ichor-slick/1": "play-a-spell",
    "futuresight/cards/imperial-mask/1": "in-play",
    "futuresight/cards/imperial-mask/4": "in-play",
    "futuresight/cards/imperial-mask/5": "in-play",
    "futuresight/cards/imperiosaur/1": "play-a-spell",
    "futuresight/cards/imperiosaur/3": "play-a-spell",
    "futuresight/cards/imperiosaur/5": "play-a-spell",
    "futuresight/cards/kavu-primarch/1": "play-a-spell",
    "futuresight/cards/lost-auramancers/1": "in-play",
    "futuresight/cards/magus-of-the-future/3": "play-a-spell",
    "futuresight/cards/magus-of-the-future/4": "play-a-spell",
    "futuresight/cards/magus-of-the-future/5": "play-a-spell",
    "futuresight/cards/magus-of-the-future/6": "play-a-spell",
    "futuresight/cards/magus-of-the-future/7": "play-a-spell",
    "futuresight/cards/magus-of-the-vineyard/1": "mana-burn",
    "futuresight/cards/mesmeric-sliver/1": "in-play",
    "futuresight/cards/mistmeadow-skulk/1": "converted-mana-cost",
    "futuresight/cards/mistmeadow-skulk/2": "converted-mana-cost",
    "futuresight/cards/mistmeadow-skulk/3": "converted-mana-cost",
    "futuresight/cards/nacatl-war-pride/2": "in-play",
    "futuresight/cards/nacatl-war-pride/3": "in-play",
    "futuresight/cards/nacatl-war-pride/4": "in-play",
    "futuresight/cards/nacatl-war-pride/5": "in-play",
    "futuresight/cards/narcomoeba/2": "in-play",
    "futuresight/cards/nihilith/1": "in-play",
    "futuresight/cards/nix/2": "in-play",
    "futuresight/cards/nix/3": "play-a-spell",
    "futuresight/cards/pooling-venom/2": "play-a-spell",
    "futuresight/cards/putrid-cyclops/1": "split-card-halves",
    "futuresight/cards/quagnoth/1": "in-play",
    "futuresight/cards/quagnoth/2": "removed-from-the-game",
    "futuresight/cards/quiet-disrepair/3": "in-play",
    "futuresight/cards/riftsweeper/1": "removed-from-the-game",
    "futuresight/cards/river-of-tears/2": "in-play",
    "futuresight/cards/saltskitter/1": "in-play",
    "futuresight/cards/scouts-warning/2": "play-a-spell",
    "futuresight/cards/scouts-warning/3": "play-a-spell",
    "futuresight/cards/scouts-warning/4": "play-a-spell",
    "futuresight/cards/shah-of-naar-isle/1": "in-play",
    "futuresight/cards/shivan-sand-mage/1": "in-play",
    "futuresight/cards/sliver-legion/1": "in-play",
    "futuresight/cards/spellweaver-volute/2": "in-play",
    "futuresight/cards/spellweaver-volute/3": "removed-from-the-game",
    "futuresight/cards/spellweaver-volute/4": "removed-from-the-game",
    "futuresight/cards/spellweaver-volute/5": "in-play",
    "futuresight/cards/spellweaver-volute/6": "in-play",
    "futuresight/cards/spellwild-ouphe/1": "play-a-spell",
    "futuresight/cards/spellwild-ouphe/3": "play-a-spell",
    "futuresight/cards/sprout-swarm/1": "play-a-spell",
    "futuresight/cards/storm-entity/1": "in-play",
    "futuresight/cards/sword-of-the-meek/1": "in-play",
    "futuresight/cards/sword-of-the-meek/2": "in-play",
    "futuresight/cards/sword-of-the-meek/3": "in-play",
    "futuresight/cards/thornweald-archer/3": "deathtouch-trigger",
    "futuresight/cards/thornweald-archer/4": "deathtouch-trigger",
    "futuresight/cards/thornweald-archer/5": "deathtouch-trigger",
    "futuresight/cards/thunderblade-charge/1": "play-a-spell",
    "futuresight/cards/tolaria-west/1": "converted-mana-cost",
    "futuresight/cards/venser-shaper-savant/3": "removed-from-the-game",
    "futuresight/cards/yixlid-jailer/2": "in-play",
    "futuresight/cards/yixlid-jailer/3": "in-play",
    "futuresight/cards/yixlid-jailer/6": "in-play",
}

# Reviewed and not flagged, each beside a word a looser table would have taken for a change.
NOT_FLAGGED = {
    "futuresight/cards/char-rumbler/3": "first-strike and normal combat damage are still assigned in two steps",
    "futuresight/cards/dryad-arbor/4": "a land is still played ('play Dryad Arbor', 'already played a land')",
    "futuresight/cards/dryad-arbor/2": "'played as a land', 'your land play'",
    "futuresight/cards/magus-of-the-future/2": "'you can play it if you could play a land'",
    "futuresight/cards/river-of-tears/1": "'the turn you play River of Tears', a land",
    "futuresight/introduction": "'sanctioned Constructed play' is the game, not a spell",
    "futuresight/cards/coalition-relic/1": "mana still goes to a mana pool",
    "futuresight/cards/snake-cult-initiation/2": "poisonous is still a triggered ability",
    "futuresight/cards/daybreak-coronet/3": "a pointer to the lifelink note, which says nothing itself",
}


def soup(response):
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def first_keys(store) -> dict[str, str]:
    (table,) = [t for t in store.manifest["obsolete"] if t["doc"] == "futuresight"]
    return {record_id: keys[0] for record_id, keys in table["flagged"].items()}


def test_every_flagged_ruling_and_note_is_the_reviewed_list(store):
    assert first_keys(store) == EXPECTED


@pytest.mark.parametrize("record_id", sorted(NOT_FLAGGED))
def test_a_ruling_that_still_holds_is_not_flagged(store, client, record_id):
    assert store.get(record_id) is not None
    assert record_id not in first_keys(store)
    page = client.get("/api/records/" + record_id).get_json()
    assert page["obsolete"] is None
    assert soup(client.get("/" + record_id)).select(".obsolete") == []


def test_only_rulings_and_notes_are_flagged(store):
    assert {store.get(i).kind for i in EXPECTED} == {"ruling", "note"}


def test_the_ruling_the_judge_met_says_mana_burn_is_gone_with_todays_rule(cr_client):
    """/futuresight/cards/magus-of-the-vineyard ruling 1 said "it will cause mana burn" with no warning."""
    data = cr_client.get("/api/records/futuresight/cards/magus-of-the-vineyard/1").get_json()
    o = data["obsolete"]
    assert {k: o[k] for k in ("key", "kind", "since", "release", "today", "today_rule", "glossary")} == {
        "key": "mana-burn", "kind": "rule", "since": "2009-07-11", "release": "Magic 2010", "today": "cr/500.5",
        "today_rule": "500.5", "glossary": "cr/glossary/mana-burn-obsolete"}
    assert o["why"].startswith("Mana burn no longer exists")
    assert [a["key"] for a in o["also"]] == ["mana-empties-each-phase"]
    assert cr_client.get("/api/records/cr/500.5").get_json()["text"].count("mana pool empties") == 1
    banner = soup(cr_client.get("/futuresight/cards/magus-of-the-vineyard/1")).select_one("p.obsolete")
    assert banner.get_text(" ", strip=True).startswith("2007 ruling — Mana burn no longer exists")
    assert [a["href"] for a in banner.select("a")] == ["/cr/500.5", "/cr/glossary/mana-burn-obsolete"]


def test_a_search_hit_carries_the_banner(cr_client):
    """`mana burn` ranked that ruling second, read as current."""
    data = cr_client.get("/api/search?q=mana+burn").get_json()
    hits = {h["id"]: h for h in data["results"]}
    assert hits["futuresight/cards/magus-of-the-vineyard/1"]["obsolete"]["key"] == "mana-burn"
    assert all(h["obsolete"] is None for h in data["results"] if h["doc"] != "futuresight")
    page = soup(cr_client.get("/search?q=mana+burn"))
    hit = next(li for li in page.select("li.hit")
               if li.select_one("a.hit-title")["href"] == "/futuresight/cards/magus-of-the-vineyard/1")
    assert "Mana burn no longer exists" in hit.select_one("p.obsolete").get_text()


def test_every_todays_rule_and_glossary_entry_is_a_record_of_the_official_rules(cr_store):
    for table in cr_store.manifest["obsolete"]:
        for entry in table["entries"]:
            assert cr_store.get("cr/" + entry["today"]) is not None, entry["key"]
            glossary = entry.get("glossary")
            assert glossary is None or cr_store.get(glossary) is not None, entry["key"]
            assert glossary is None or "(Obsolete)" in (cr_store.get(glossary).title or ""), entry["key"]


def test_without_the_official_rules_today_is_none_and_why_names_the_rule(client):
    o = client.get("/api/records/futuresight/notes/new-keyword-ability-lifelink/1").get_json()["obsolete"]
    assert (o["key"], o["today"], o["glossary"], o["today_rule"]) == ("lifelink-trigger", None, None, "702.15")
    assert o["why"].endswith("(today: rule 702.15 of the Comprehensive Rules).")
    banner = soup(client.get("/futuresight/notes/new-keyword-ability-lifelink/1")).select_one("p.obsolete")
    assert banner.select("a") == [] and "rule 702.15" in banner.get_text()


def test_a_renamed_term_says_the_answer_holds_in_its_years_words(cr_client):
    o = cr_client.get("/api/records/futuresight/cards/riftsweeper/1").get_json()["obsolete"]
    assert (o["kind"], o["today"]) == ("term", "cr/406")
    text = soup(cr_client.get("/futuresight/cards/riftsweeper/1")).select_one("p.obsolete").get_text(" ", strip=True)
    assert text.startswith("2007 ruling, in its year's words — “Removed from the game” is “exiled” since Magic 2010")


@pytest.mark.parametrize("card, printed, today", [
    ("tarmogoyf", "Creature -- Lhurgoyf", "Creature — Lhurgoyf"),
    ("bound-in-silence", "Tribal Enchantment -- Rebel Aura", "Kindred Enchantment — Rebel Aura"),
    ("ghostfire", "Instant", None),
])
def test_a_2007_type_line_is_shown_as_printed_with_todays_wording(client, card, printed, today):
    data = client.get(f"/api/records/futuresight/cards/{card}").get_json()
    assert (data["type_line"], data["type_line_today"]) == (printed, today)
    line = soup(client.get(f"/futuresight/cards/{card}")).select_one("p.type-line")
    assert line.get_text(" ", strip=True).startswith(printed)
    assert (line.select_one(".type-line-today") is not None) == (today is not None)
    if today:
        assert today in line.get_text()


def test_a_pattern_matched_only_inside_its_exception_flags_nothing():
    entry = {"pattern": r"\bplay(?:s|ed|ing)?\b", "except": r"\bplay(?:ed)? (?:\S+ ){0,6}?a land\b"}
    assert not flagged_by(entry, "You can play it if you could play a land.")
    assert flagged_by(entry, "You can play it if you could play a land, and play a spell.")


def test_a_bad_table_fails_the_build_with_its_line(tmp_path):
    (tmp_path / "futuresight_obsolete.toml").write_text(
        '[[entry]]\nkey = "a"\nkind = "rule"\nterm = "a"\npattern = "("\nsince = "2009"\nrelease = "M10"\n'
        'today = "500.5"\nwhy = "because"\n', encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        load_obsolete(tmp_path, [])
    (problem,) = caught.value.problems
    assert (problem.line, problem.expected) == (1, "entry 1 (a): since as YYYY-MM-DD")


def test_an_entry_without_its_reason_fails_the_build(tmp_path):
    (tmp_path / "futuresight_obsolete.toml").write_text(
        '# the table\n\n[[entry]]\nkey = "a"\nkind = "rule"\nterm = "a"\npattern = "a"\nsince = "2009-07-11"\n'
        'release = "M10"\ntoday = "500.5"\n', encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        load_obsolete(tmp_path, [])
    assert [(p.line, p.expected.split(":")[0]) for p in caught.value.problems] == [(3, "entry 1")]


def test_a_card_page_marks_its_obsolete_rulings_where_it_reads_them(cr_client):
    """The card's own page, /futuresight/cards/magus-of-the-vineyard, is where the judge read 'it will cause mana
    burn': its ruling 1 carries the banner there, its ruling 2 (still true) none."""
    page = soup(cr_client.get("/futuresight/cards/magus-of-the-vineyard"))
    one, two = (page.find("li", id=n) for n in ("1", "2"))
    assert one.select_one("p.obsolete")["data-obsolete"] == "mana-burn"
    assert two.select("p.obsolete") == []
    reading = cr_client.get("/api/records/futuresight/cards/magus-of-the-vineyard").get_json()["reading"]
    assert [(r["id"], (r["obsolete"] or {}).get("key")) for r in reading] == [
        ("futuresight/cards/magus-of-the-vineyard/1", "mana-burn"), ("futuresight/cards/magus-of-the-vineyard/2", None)]
