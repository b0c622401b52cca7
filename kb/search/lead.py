"""Stage 2, lead: what answers before any ranking, and often alone (no full-text search at all).

In order, the first that answers: a rule reference in any form (a parent number with its sub-rules; a number two
documents use, both documents' rules first; a date or a year: today's rule, said so); a number with words
("702.19 trample", "704.5 legend rule": the rule or sub-rule the words fit); references cited inside a sentence
("(see rule 510.1c)"); a card name (exact, within two typos); a title exactly, or as the vocabulary reads it; a
card name's start, end or joined words ("tarmo", "goyf", "timebender"); a title mistyped ("deathtuch"); the title
once the words nothing uses are left out. Each is one small method returning a ``Lead`` or None.

Reads: the resolver (kb.resolve: references, card names), the store's records and families, the titles
(kb.search.titles), the re-ranker's stems (kb.rank), the index's words and their weights (kb.search.tables),
typos (kb.search.typos). Never Whoosh's searching: a reference is answered without touching the index.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import EllipsisType

from kb import rank
from kb.ids import fold
from kb.index import plain
from kb.model import Record
from kb.refs import RefQuery, find_refs, parse_ref, undated, yearless_day
from kb.search.parse import ONLY_ASKING, WORD, Query, content_stems, exact_words
from kb.search.tables import Tables
from kb.search.titles import Titles
from kb.search.typos import Typos
from kb.snippet import stem
from kb.words import TOKEN_RE

__all__ = ["Lead", "Leader", "MAX_CITED"]

# And around a rule number: "show me 702.19b", "what does 603.4 say".
_ASKING_FOR_A_RULE = ONLY_ASKING | {"say", "says", "rule", "rules", "cr", "show", "me", "read", "look", "up", "about",
                                    "number", "from", "per", "according", "to", "in", "under", "comp",
                                    "comprehensive", "official"}  # "613.4b per the comp rules"
# Words asking about a rule across releases: "702.19c history", "702.19c as of 2020", "changes to 716.2".
_ACROSS_TIME = frozenset({"history", "changes", "changed", "versions", "version", "over", "time", "as", "of", "in",
                          "to", "since", "before", "old", "older", "previous"})
_YEAR = re.compile(r"(?:19|20)\d\d")
# Words that cite a rule rather than say anything of their own: "see rule 601.2f", "as in 704.5j", "cf. 510.1c",
# "(see also rule 702.19b)", "e.g. 116.2".
_CITING = frozenset({"see", "also", "cf", "as", "eg", "e", "g", "ie", "i", "under", "by", "described", "explained",
                     "stated", "defined", "written", "following", "rule", "rules"})
MAX_CITED = 4  # references of one sentence listed first (Leader.cited)
# A title asked about as "how does ward work": what it is, not where its rules are listed. ("What is ward", "define
# ward", "meaning of ward" ask for the term, as the bare title does: tests/test_search_signals.py)
_HOW_IT_WORKS = frozenset({"work", "works", "working"})
_CITED_AFTER = re.compile(r"(?:\b(?:see|per|in|under|cf|by|also|e\.?g|i\.?e)\.?,?|[(\[])\s*$", re.IGNORECASE)


def _citing_only(said: Iterable[str]) -> bool:
    """The words around a rule number only ask for it or cite it ("what does", "see", "per", "as in"), not about
    it across releases ("as of", "history", a year: _ACROSS_TIME)."""
    said = tuple(said)
    if any(w not in _ASKING_FOR_A_RULE and w not in _CITING for w in said):
        return False
    return not any(a == "as" and b == "of" for a, b in zip(said, said[1:], strict=False))


# A bare number followed by what it counts is a count: "a 200 card deck", "100 life", "150 damage".
_COUNTED = re.compile(r"(?:cards?|life|damage|players?|counters?|creatures?|lands?|turns?|points?|tokens?|copies|"
                      r"mana|poison)\W*$", re.I)
_NUMBER = re.compile(r"^(?:\d{3}(?:\.\d+[a-z]{0,2})?|\d{3}\.[a-z]+-\d+)\.?$", re.I)


_ASCII_DIGIT = re.compile(r"[0-9]")


def _has_digit(text: str) -> bool:
    """Some character of ``text`` is a digit (``str.isdigit``: in ASCII text only 0-9), found by one scan in C rather
    than a call per character (a question of fifty letters: ~1 against ~4 us)."""
    return _ASCII_DIGIT.search(text) is not None if text.isascii() else any(map(str.isdigit, text))


def _across_time(said: Iterable[str]) -> bool:
    """The words around a rule number ask about it across releases, or for it: "702.19c history", "702.19b 2019"."""
    return all(w in _ASKING_FOR_A_RULE or w in _ACROSS_TIME or _YEAR.fullmatch(w) for w in said)


@dataclass
class Lead:
    """Records that answer before any ranking (a reference, a card, a title)."""
    records: list[Record]
    matched_by: str
    note: str | None = None
    redirect: str | None = None
    complete: bool = False  # the answer is these records: no full-text search
    mistyped: bool = False  # a title found once a typo was corrected ("deathtuch"): the answer says "did you mean"
    corrected_to: str | None = None  # that correction, when the full-text search would not make it ("first strke")
    cites: dict[str, str] = field(default_factory=dict)  # a record listed as citing the reference -> what it cites
    followed: bool = False  # a reference inside a sentence: its records first, the full-text search after them
    missed: bool = False  # a reference to no rule: the note and the nearest numbers, nothing else


class Leader:
    """Query -> ``Lead``: the records that answer first, and whether the full-text search follows."""

    def __init__(self, tables: Tables, titles: Titles, typos: Typos):
        self.tables, self.titles, self.typos = tables, titles, typos
        self.store, self.resolver, self.ranker, self.versions = tables.store, tables.resolver, tables.ranker, \
            tables.versions
        self.exact_df = tables.exact_df

    def lead(self, query: Query) -> Lead:
        text, doc = query.text, query.doc
        lead = (self.reference(text, doc, query.reference) or self.reference_with_words(text, doc)
                or self.cited(text, doc) or self.card(text, doc)
                or self.titled(text, doc) or (self.titled(query.words.text, doc) if query.words.used else None)
                or self.card_like(query) or self.titled_mistyped(query, text)
                or ((said := self.typos.said_in(query, query.words.text)) != query.words.text
                    and (self.titled(said, doc) or self.titled_mistyped(query, said)))
                or Lead([], "text"))
        if query.kind:
            lead.records = [r for r in lead.records if r.kind == query.kind]
            if lead.redirect and lead.redirect not in {r.id for r in lead.records}:
                lead.redirect = None  # "907.4b kind:card" is not a reason to jump to the rule
        # A rule number or an exact card name is answered without the full-text index; so is a number no rule has
        # (after "no rule 999.9", 1,994 records sharing a word of the query were listed)
        lead.complete = not lead.followed and (bool(lead.records) or lead.missed) \
            and (lead.matched_by == "reference" or bool(lead.redirect))
        return lead

    def reference(self, text: str, doc: str | None, parsed: RefQuery | None | EllipsisType = ...) -> Lead | None:
        """``text`` as one rule reference (``parsed``: as kb.refs.parse_ref read it, when the parse stage did)."""
        if parsed is ...:
            sections, names = self.resolver.section_titles, self.resolver.doc_names
            parsed = parse_ref(text, sections=sections, bare_numbers=True, doc_names=names)
        if parsed is None:
            return None
        if parsed.date:
            # "716.2@2016-07-22": the rule as it stood that day is a page of the rules' history (the site goes
            # there, web.data); the list is today's rule of that number, said so, not a search for the words
            plain = undated(text)
            # (a text it cannot shorten would ask again forever: "702.19b 2019-01-25." was a RecursionError, a 500)
            today = self.reference(plain, doc) if plain != text.strip() else None
            if today is not None and today.records:
                today.redirect = None  # never to today's rule
                today.note = (f"{text.strip()} asks for the rule as it stood on {parsed.date}; listed here: today's "
                              f"{parsed.numbers[0]}")
            return today
        res = self.resolver.resolve(text)
        matches = [r for r in res.matches if doc is None or r.doc == doc]
        if parsed.loose and not matches:
            return None  # "token card x": words ending in a letter no rule of that section has
        if not matches and not res.suggestions:
            return Lead([], "reference", res.note, missed=True)
        if not matches:
            return Lead(res.suggestions, "reference", res.note, missed=True)  # the nearest numbers, nothing else
        note = res.note
        docs = list(dict.fromkeys(r.doc for r in matches))
        # One number lists the records citing it after its own (labelled); a range or list ("613.1a-g") is
        # exactly the rules asked for, as its short link /r/613.1a-g shows them: the four records citing a
        # layer were listed after the seven layers with nothing to say why
        cites: dict[str, str] | None = {} if len(parsed.numbers) <= 1 else None
        if parsed.prefer and matches and matches[0].doc == parsed.prefer and len(matches) == len(docs):
            # "CR 702.187c", "CR 116": the prefix asks for the official rule, as its short link reads it; the
            # other documents' rule of that number still follows it in the list
            return Lead(self.with_family(matches, cites), "reference", note, matches[0].id, cites=cites or {})
        if len(docs) > 1 and not note and len(matches) == len(docs):
            # "702.187c": Treachery's Unveil and the official rules' Mayhem, both first; say so
            titles = [self.versions.get(d, (d, ""))[0] for d in docs]
            other = next((d for d in docs if d != "cr"), docs[0])  # the official rules come first (kb.resolve)
            note = (f"{matches[0].number} is a rule of {len(docs)} documents: {', '.join(titles)}; "
                    f"“CR {matches[0].number}” or “{other} {matches[0].number}” asks for one")
        return Lead(self.with_family(matches, cites) + [s for s in res.suggestions if s not in matches],
                     "reference", note, matches[0].id if len(matches) == 1 else None, cites=cites or {})

    def with_family(self, matches: list[Record], cites: dict[str, str] | None = None) -> list[Record]:
        """The matches first (a number two documents use: both documents' rules in the first places),
        then each one's sub-rules, then, given ``cites`` to fill (citing record id -> the number it cites),
        the records citing them."""
        records = list(matches)
        for r in matches:
            records += [c for c in self.descendants(r) if c not in records]
        if cites is None:
            return records
        for r in matches:
            for c in r.cited_by:
                if self.store.records[c] not in records:
                    records.append(self.store.records[c])
                    cites[c] = r.number or r.id
        return records

    def descendants(self, record: Record) -> list[Record]:
        out = []
        for child in self.store.children(record):
            out.append(child)
            out += self.descendants(child)
        return out

    def reference_with_words(self, text: str, doc: str | None) -> Lead | None:
        """ "702.19 trample", "flying 702.9": the rule, when the words fit it (its heading, its
        text, its sub-rules' text or its parents' headings)."""
        if not _has_digit(text):
            return None  # most queries: no number (a day's or a rule's), so nothing to fit words to
        yearless = yearless_day(text)
        if yearless:  # "716.2 as of July 1": a day without its year, not words of a sub-rule (716.2a says "1")
            return self._yearless(yearless, doc)
        split = self._number_in(text)
        if split is None:
            return None
        number, reference, words = split
        found = self.reference(reference, doc)
        if found is None:
            return None
        said = exact_words(" ".join(words))
        if "." in number and (_citing_only(said) or (found.records and _across_time(said))):
            return self._asked_of(text, found, said)
        stems = set(content_stems(" ".join(words)))
        return self._fitting(found, stems) if stems else None

    def _yearless(self, yearless: tuple[str, str], doc: str | None) -> Lead | None:
        """ "716.2 as of July 1": today's rule, said so (a day needs its year to name a release)."""
        today = self.reference(yearless[1], doc)
        if today is not None and today.records:
            today.redirect = None  # never to today's rule: 2016's 716.2 is another rule
            today.note = (f"{yearless[0]!r} has no year: write it with one ({yearless[0]} 2019) or as a day "
                          f"(2019-07-01); listed here: today's {yearless[1].strip()}")
        return today

    def _number_in(self, text: str) -> tuple[str, str, list[str]] | None:
        """A rule number among two to eight words: (the number, the reference as typed, the other words)."""
        tokens = text.split()
        if not 2 <= len(tokens) <= 8 or "number with words" not in rank.SIGNALS:
            return None
        # "704.5: legend rule", "704.5, legend rule": the number, then words
        at = next((i for i, t in enumerate(tokens) if _NUMBER.match(t.rstrip(":,;"))), None)
        if at is None:
            return None
        tokens[at] = tokens[at].rstrip(":,;")
        if tokens[at].isdigit() and tokens[at + 1:at + 2] and _COUNTED.match(tokens[at + 1]):
            return None  # "a 200 card deck", "at 100 life": a count, not rule 200
        # "rule 702.19", "CR 702.19": the word before the number may belong to the reference.
        joined = at and parse_ref(" ".join(tokens[at - 1:at + 1]), bare_numbers=True, doc_names=self.resolver.doc_names)
        if tokens[at].isdigit() and at and not joined:
            return None  # a bare number inside words is a count ("commander deck size 100"), unless it leads
        start, end = (at - 1, at + 1) if joined else (at, at + 1)
        return tokens[at], " ".join(tokens[start:end]), tokens[:start] + tokens[end:]

    @staticmethod
    def _asked_of(text: str, found: Lead, said: tuple[str, ...]) -> Lead:
        """A rule number with words that only ask for it or cite it: the rule, as typed alone ("what is 603.4",
        "what does 702.19b say", "see rule 601.2f", "as in 704.5j"); or that ask about it across releases
        ("702.19c history", "702.19b 2019": the site opens its history or the rule as it stood that year, web.data),
        where the list is today's rule, said so, not a search for the words."""
        if _citing_only(said):
            return found
        found.redirect = None
        found.note = "; ".join(filter(None, [found.note, f"{text.strip()} asks about the rule across releases; "
                                                         f"listed here: today's {found.records[0].number}"]))
        return found

    def _fitting(self, found: Lead, stems: set[str]) -> Lead | None:
        """The rule of a number whose family the words fit, first, with the sub-rule they name; None when they fit
        none of the rules the number names."""
        # the rules the number names, not the records listed as citing them ("613.4b from the rules" opened
        # 123.8, which cites 613.4b and says "rules")
        fits = [r for r in found.records if r.kind == "rule" and r.id not in found.cites
                and stems & self._family_stems(r)]
        if not fits:
            return None
        best = self._named_sub_rule(fits[0], stems)
        cites: dict[str, str] = {}
        family = self.with_family([best], cites)
        listed = {r.id for r in family}  # the other matches' families cite or hold records of its family too
        rest = [r for r in found.records if r.id not in listed]
        # the sub-rule the words name and its own, then the rule typed and its own, then what cites either
        # ("704.5 legend": 704.5j, 704.5 and its sub-rules, then the records citing 704.5j or 704.5)
        return Lead([r for r in family if r.id not in cites] + [r for r in rest if r.id not in found.cites]
                    + [r for r in family if r.id in cites] + [r for r in rest if r.id in found.cites],
                    "reference", redirect=best.id, cites={**found.cites, **cites})

    def cited(self, text: str, doc: str | None) -> Lead | None:
        """A reference written as a citation, inside brackets or a sentence ("(see rule 510.1c)", "damage is dealt
        as in rule 510.1c, right?"): the rules it names, as the number alone answers, and the records citing them
        after; when the words around it say more than a citation does, the full-text search follows them. The
        words around it were searched alone, and the rules citing it came first, the rule itself not in the
        first three."""
        if not _has_digit(text):
            return None  # most questions: no number to cite, no reference scan
        refs = [r for r in find_refs(text, doc_names=self.resolver.doc_names) if r.query.numbers and not r.query.date]
        # cited: after "see", "per", "as in", a bracket, or inside a sentence; "702.9 trample" is a number mistyped
        # beside words (_reference_with_words), whose words are searched
        if not refs or not (len(text.split()) > 8 or any(_CITED_AFTER.search(text, 0, r.start) for r in refs)):
            return None
        rest = text
        for r in reversed(refs):
            rest = rest[:r.start] + " " + rest[r.end:]
        found = [lead for lead in (self.reference(r.text, doc) for r in refs[:MAX_CITED])
                 if lead is not None and lead.records and not lead.missed]
        if not found:
            return None
        if len(found) == 1 and _citing_only(exact_words(rest)):
            return found[0]  # "(see rule 510.1c)": the reference, as typed alone
        own = list(dict.fromkeys(r for lead in found for r in lead.records if r.id not in lead.cites))
        citing = [r for lead in found for r in lead.records if r.id in lead.cites and r not in own]
        cites = {rid: number for lead in found for rid, number in lead.cites.items()}
        return Lead(own + list(dict.fromkeys(citing)), "reference", cites=cites, followed=True)

    def rule_with_words(self, text: str) -> Record | None:
        """The rule a number with words names, as the search box opens it ("704.5 legend rule": 704.5j), or None
        when the words fit no rule of that number."""
        lead = self.reference_with_words(text, None)
        return self.store.records.get(lead.redirect) if lead is not None and lead.redirect else None

    def _named_sub_rule(self, rule: Record, stems: set[str]) -> Record:
        """The rule or the sub-rule of it whose own words (its heading and text, not its parents') weigh most of
        the words typed beside its number: "704.5 legend rule" is 704.5j, "704.5 poison counters" 704.5c (the
        parent's family holds every word its sub-rules say, so it fitted first). A tie keeps the one nearest
        the number typed ("702.19 trample" is 702.19, whose sub-rules all say trample)."""
        weight = rank.weights(self.tables.searcher, sorted(stems))
        best, most = rule, 0.0
        for record in [rule, *self.descendants(rule)]:
            own = {stem(w.lower()) for w in TOKEN_RE.findall(plain(f"{record.title or ''} {record.text or ''}"))}
            said = math.fsum([weight[s] for s in stems & own])  # a set: fsum, any order
            if said > most + 1e-9:
                best, most = record, said
        return best

    def _family_stems(self, record: Record) -> frozenset[str]:
        stems = set(self.ranker.stems(record))
        for child in self.descendants(record)[:12]:
            stems |= self.ranker.stems(child)
        return frozenset(stems)

    def card(self, text: str, doc: str | None) -> Lead | None:
        card, distance = self.resolver.card(text)
        if card is None or (doc and card.doc != doc):
            return None
        note = None if distance == 0 else f"showing {card.title} for {text!r}"
        return Lead([card], "card", note, card.id if distance == 0 else None)

    def card_like(self, query: Query) -> Lead | None:
        """A word the documents never use that starts a card name or joins its words:
        "tarmo", "imperio", "thunderbl" (prefixes), "timebender", "puppetmaster" (joined); else one
        that ends a word of a name ("goyf"), or a "The ..." name without "The" and mistyped ("metamorf")."""
        text, doc = query.text, query.doc
        words = WORD.findall(fold(text).lower())
        if not words or len(words) > 3 or "card prefixes" not in rank.SIGNALS:
            return None
        if any(self.exact_df.get(w) for w in words):  # a word the documents use
            return None
        typed = " ".join(words)
        cards = [c for c in self.resolver.cards_starting(typed) if doc is None or c.doc == doc]
        # A name's end or a "The ..." name mistyped only when no word of the documents is within reach:
        # "egamorph" is megamorph mistyped (did you mean), not The Metamorph; "goyf" is nothing else.
        if not cards and self.typos.correction(query) is None:
            cards = [c for c in self.resolver.cards_ending(typed) if doc is None or c.doc == doc]
            if not cards:
                card, _ = self.resolver.card_without_the(typed)
                cards = [card] if card is not None and (doc is None or card.doc == doc) else []
        if not cards:
            return None
        names = ", ".join(c.title or c.id for c in cards[:3])
        return Lead(cards[:5], "card", f"showing {names} for {text!r}")

    def titled(self, text: str, doc: str | None) -> Lead | None:
        """A query that is exactly a keyword's, rule's or term's title answers with those first."""
        if '"' in text:
            return None
        records = self.titles.titled(text, doc)
        if records and "how it works" in rank.SIGNALS and _HOW_IT_WORKS.intersection(exact_words(text)):
            records = self._opening_first(records)
        return Lead(records[:5], "title") if records else None

    def _opening_first(self, records: list[Record]) -> list[Record]:
        """A heading with no text of its own (702.21 Ward, 728 Rad Counters) that a question asks how it works
        gives the first place to its first sub-rule, which says it (702.21a "Ward is a triggered
        ability ..."), and comes second: the blind sets' "how do rad counters work" cites 728.1."""
        first = records[0]
        if first.kind != "rule" or first.text or not first.children:
            return records
        opening = self.store.records.get(first.children[0])
        if opening is None or not opening.text:
            return records
        return [opening, *(r for r in records if r.id != opening.id)]

    def titled_mistyped(self, query: Query, text: str) -> Lead | None:
        """A title mistyped ("deathtuch", "tramlpe") answers as the title typed right does: the rule first,
        not the keyword page the full-text search ranks highest (which corrects it too, and says so)."""
        # up to three words that say something ("what is a mulligen" is one: mulligan, as typed right it is a title)
        if len(content_stems(text)) > 3 or "typos" not in rank.SIGNALS:
            return None
        doc = query.doc
        fixed = self.typos.fixed_in(query, text)
        lead = self.titled(fixed, doc) if fixed else None
        if lead is None:
            # Shorter words too ("first strke", "legnd rule"), one edit each, only when the whole query then
            # is a title: too short to correct inside a question, where a name the documents lack is as likely.
            fixed = self.typos.fixed_in(query, fixed or text, short=True)
            lead = self.titled(fixed, doc) if fixed else None
            if lead is not None:
                lead.note = f"spelling corrected: {fixed!r}"
                lead.corrected_to = fixed
        if lead is not None:
            lead.mistyped = True
        return lead
