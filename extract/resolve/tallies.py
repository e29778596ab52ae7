"""The two per-paper passes of corpus resolution (:func:`~paperkg.extract.resolve.canonical.resolve_stream`),
as tallies of a batch of papers that add up in batch order to the tallies of the whole corpus.

1. :class:`DefinitionPass`: the acronyms each abstract defines (or writes beside a long form
   that does not spell them) and the type votes of short forms, which make the corpus-wide
   acronym table;
2. :class:`KeyPass`: each mention's key after acronyms and aliases, with the tallies that the
   corpus-wide folds, the types and the names are decided from.

Adding batches in order gives what one pass over all papers gives, down to the order of every
tally's keys (a Counter keeps the order keys first came in), so the passes can run over batches
in forked processes (:func:`paperkg.forks.fork_map`) and resolve alike.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from paperkg.extract.nlp.abbreviations import is_short_form
from paperkg.extract.nlp.filtering import is_non_entity
from paperkg.extract.nlp.markup import clean_name
from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.nlp.records import DocMentions
from paperkg.extract.resolve.acronyms import FUNCTION_WORDS, AcronymTable, expands, same_written_form, spelled_long_form
from paperkg.types import Paper

if TYPE_CHECKING:
    from paperkg.extract.resolve.canonical import KnownTables

#: How much one mention's type counts in the vote, by where the mention came from.
TYPE_WEIGHT = {"gazetteer": 4, "abbreviation": 2, "proposal": 2, "model": 1}
#: Evidence notes kept per merged written form in the resolution report.
MAX_EVIDENCE = 3
#: Distinct long forms of one initial that a short form of the same abstract is tried against.
MAX_SPELLED_OUT = 64
_SPACES = re.compile(r"\s+")
_WORD_BREAK = re.compile(r"[\s\-]+")

#: One batch: ``(paper index, its stored document)`` pairs, in paper order.
Batch = Sequence[tuple[int, DocMentions]]
#: Per paper: short key -> (what it means there, its written forms, the definition as written).
LocalMaps = dict[int, dict[str, tuple[str, set[str], str]]]


def display_form(surface: str) -> str:
    """A written form as names and aliases show it: markup cleaned, spaces collapsed."""
    return _SPACES.sub(" ", clean_name(surface)).strip()


class Names:
    """Written form -> (the form cleaned, its key), remembered: a 95k-paper corpus writes
    ~250k distinct names in ~1.2M mentions, more than normalize_key's cache holds. The first
    pass names every mention and hands what it learnt to the second (:meth:`taken`, :meth:`learn`),
    which then names none anew, in forked processes too."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str]] = {}
        self._new: dict[str, tuple[str, str]] = {}

    def __call__(self, written: str) -> tuple[str, str]:
        found = self._seen.get(written)
        if found is None:
            surface = clean_name(written)
            found = self._seen[written] = self._new[written] = (surface, normalize_key(surface))
        return found

    def taken(self) -> dict[str, tuple[str, str]]:
        """The names made since the last call."""
        new, self._new = self._new, {}
        return new

    def learn(self, names: dict[str, tuple[str, str]]) -> None:
        self._seen.update(names)


@dataclass
class Definitions:
    """Pass 1's tallies: acronym definitions ``(short, long, paper index)``, acronyms defined
    by a long form that does not spell them (as ``(short key, long key, paper id)`` for the
    report and as ``(short, "", paper index)``), and the weighted type votes of ``(key, type)``
    for mentions written as one short form or as a long form the abstract defines; and the
    :class:`Names` made on the way."""

    definitions: list[tuple[str, str, int]] = field(default_factory=list)
    unspelled: list[tuple[str, str, str]] = field(default_factory=list)
    unspelled_at: list[tuple[str, str, int]] = field(default_factory=list)
    votes: Counter = field(default_factory=Counter)
    names: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, other: Definitions) -> Definitions:
        self.definitions += other.definitions
        self.unspelled += other.unspelled
        self.unspelled_at += other.unspelled_at
        self.votes.update(other.votes)
        self.names.update(other.names)
        return self


@dataclass
class DefinitionPass:
    """Pass 1 over one batch (a pure function of the batch and ``papers``)."""

    papers: Sequence[Paper]
    names: Names = field(default_factory=Names)

    def __call__(self, batch: Batch) -> Definitions:
        out = Definitions()
        for index, doc in batch:
            paper = self.papers[index]
            longs = set()
            for long_start, long_end, short_start, short_end in doc.abbreviations:
                short = clean_name(paper.abstract[short_start:short_end])
                long = spelled_long_form(paper.abstract, long_start, long_end, short)
                if long is not None:
                    out.definitions.append((short, long, index))
                    longs.add(normalize_key(long))
                elif is_short_form(short):
                    out.unspelled_at.append((short, "", index))
                    out.unspelled.append((normalize_key(short), normalize_key(clean_name(paper.abstract[long_start:long_end])),
                                          paper.id))
            for start, end, kind, _, origin, *_ in doc.mentions:
                surface, base = self.names(paper.abstract[start:end])
                if (end - start <= 14 or longs) and ((" " not in surface and is_short_form(surface)) or base in longs):
                    out.votes[base, kind] += TYPE_WEIGHT[origin]
        out.names = self.names.taken()
        return out


@dataclass
class KeyTallies:
    """Pass 2's tallies. They are flat counters keyed by tuples: a container per key (most keys
    are one mention of one paper) cost ~1 KB each at 95k papers."""

    paper_keys: list[tuple[str, ...]] = field(default_factory=list)  # per paper: base, first key ("" when dropped), per mention
    paper_count: Counter = field(default_factory=Counter)  # first key -> papers
    written: Counter = field(default_factory=Counter)  # (key, surface) of mentions written as the key itself
    key_votes: Counter = field(default_factory=Counter)  # (key, type) -> weighted votes
    key_forms: Counter = field(default_factory=Counter)  # (key, base, display form) -> mentions
    key_rules: set[tuple[str, str, str]] = field(default_factory=set)  # (key, base, rule) where the base became the key
    key_evidence: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (key, base) -> at most MAX_EVIDENCE notes
    form_keys: dict[str, str] = field(default_factory=dict)  # display form -> its key, for forms written as displayed

    def add(self, other: KeyTallies) -> KeyTallies:
        self.paper_keys += other.paper_keys
        self.paper_count.update(other.paper_count)
        self.written.update(other.written)
        self.key_votes.update(other.key_votes)
        self.key_forms.update(other.key_forms)
        self.key_rules |= other.key_rules
        for pair, notes in other.key_evidence.items():
            found = self.key_evidence.setdefault(pair, [])
            found += [note for note in notes if note not in found][: MAX_EVIDENCE - len(found)]
        self.form_keys.update(other.form_keys)
        return self


@dataclass
class KeyPass:
    """Pass 2 over one batch: acronyms and aliases, per mention (a pure function of the batch
    and the corpus tables)."""

    papers: Sequence[Paper]
    local_maps: LocalMaps
    acronyms: AcronymTable
    known: KnownTables
    names: Names = field(default_factory=Names)
    # surface -> its first key where the abstract defines no acronym of it
    first_keys: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __call__(self, batch: Batch) -> KeyTallies:
        out = KeyTallies()
        for index, doc in batch:
            paper = self.papers[index]
            local = self.local_maps.get(index, {})
            rows = []
            for row in doc.mentions:
                surface, base = self.names(paper.abstract[row[0] : row[1]])
                if base in local:
                    first = first_key(base, surface, local, self.acronyms, self.known)
                elif (first := self.first_keys.get(surface)) is None:
                    first = self.first_keys[surface] = first_key(base, surface, local, self.acronyms, self.known)
                rows.append((surface, base, *first))
            codes = []
            for (surface, base, key, rule), row in zip(same_abstract_acronyms(rows), doc.mentions):
                codes += (base, key)
                if not key:
                    continue
                if base == key:
                    out.written[key, surface] += 1
                else:
                    out.key_rules.add((key, base, rule))
                    found = out.key_evidence.setdefault((key, base), [])
                    if len(found) < MAX_EVIDENCE:
                        note = evidence(rule, paper, base, surface, local, self.acronyms, self.papers)
                        if note not in found:
                            found.append(note)
                out.key_votes[key, row[2]] += TYPE_WEIGHT[row[4]]
                form = display_form(surface)
                out.key_forms[key, base, form] += 1
                if form == surface:
                    out.form_keys[form] = base
            out.paper_count.update({key for key in codes[1::2] if key})
            out.paper_keys.append(tuple(codes))
        return out


def first_key(base: str, surface: str, local: dict[str, tuple[str, set[str], str]], acronyms: AcronymTable,
              known: KnownTables) -> tuple[str, str]:
    """The key after acronyms and aliases, and the rule that changed it ("" when none did). An
    acronym resolves only where it is written as defined ("SPEED", not the word "speed"). A
    non-entity as written (:func:`~paperkg.extract.nlp.filtering.is_non_entity`: the NER also
    reads the compacted text of a formula, where "\\ldots" leaves "dot") has no key."""
    if is_non_entity(surface):
        return "", ""
    if base in local and same_written_form(surface, local[base][1]):
        key, rule = local[base][0], "acronym defined in the abstract"
        if key == base:
            return base, ""  # defined there in letters that do not align: its own meaning, no other
    elif acronyms.resolves(base, surface):
        key, rule = acronyms.expansion[base], f"acronym: {acronyms.rule[base]}"
    else:
        key, rule = base, ""
    aliased = known.alias(key)
    if aliased != key:
        key, rule = aliased, rule or ("curated alias" if key in known.curated_aliases else "known-list alias")
    return key, rule if key != base else ""


def evidence(rule: str, paper: Paper, base: str, surface: str, local: dict[str, tuple[str, set[str], str]],
             acronyms: AcronymTable, papers: Sequence[Paper]) -> str:
    """One line of evidence for a written form that became another key, for the report."""
    if rule == "acronym defined in the abstract":
        return f"{paper.id}: {local[base][2]}"
    if rule == "acronym and long form in the same abstract":
        return f"{paper.id}: {surface} beside a long form it spells out"
    if rule.startswith("acronym: corpus"):
        found = acronyms.defined_in.get(base, ())
        others = sum(acronyms.definitions.get(base, {}).values()) - len(found)
        where = ", ".join(papers[i].id for i in found[:3])
        return f"defined so in {len(found)} abstracts ({where})" + (f", otherwise in {others}" if others else "")
    return "the curated table" if "curated" in rule else "the known lists (Papers with Code, CodeSOTA)"


def same_abstract_acronyms(rows: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """An acronym left unresolved joins a long form of the same abstract that spells it out.

    A long form spelling out a short form starts with its first letter, so each short form is
    tried against the long forms of that initial only, each distinct one once and at most
    :data:`MAX_SPELLED_OUT` of them: bounded work per mention, however many the abstract repeats.

    >>> same_abstract_acronyms([("Soft Actor-Critic", "soft actor-critic", "soft actor-critic", ""),
    ...                         ("SAC", "sac", "sac", "")])[1]
    ('SAC', 'sac', 'soft actor-critic', 'acronym and long form in the same abstract')
    """
    by_initial: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
    for surface, _, key, _ in rows:
        if " " in surface or "-" in surface:
            initial = next((w[0] for w in _WORD_BREAK.split(surface.lower()) if w and w not in FUNCTION_WORDS), "")
            longs = by_initial[initial]
            if len(longs) < MAX_SPELLED_OUT:
                longs.setdefault((surface, key), None)
    found: dict[tuple[str, str], str | None] = {}
    out = []
    for surface, base, key, rule in rows:
        if key == base and is_short_form(surface) and " " not in surface:
            if (surface, key) not in found:
                found[surface, key] = next((k for s, k in by_initial.get(surface[0].lower(), {})
                                            if k != key and expands(surface, s)), None)
            match = found[surface, key]
            if match:
                key, rule = match, "acronym and long form in the same abstract"
        out.append((surface, base, key, rule))
    return out
