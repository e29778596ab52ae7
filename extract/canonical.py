"""Corpus-level canonicalization: one key per concept across papers, one type, one name.

Runs after the per-document NLP, because two decisions need the whole corpus: an acronym used
without a definition borrows the long form defined in other abstracts (only when that is
unambiguous), and an entity's type is the weighted vote of all its mentions.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from paperkg.extract.abbreviations import is_short_form
from paperkg.extract.gazetteer import load_gazetteer
from paperkg.extract.markup import clean_name
from paperkg.extract.normalize import normalize_key
from paperkg.extract.rules import is_name_like
from paperkg.types import ENTITY_TYPES, ROLES, Extraction, Mention, Paper, PaperEntity

#: How much one mention's type counts in the vote, by where the mention came from.
TYPE_WEIGHT = {"gazetteer": 4, "abbreviation": 2, "proposal": 2, "model": 1}
MAX_ALIASES = 20
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class DocMentions:
    """The per-document output of the spaCy stage, as plain data.

    ``mentions`` rows are ``(start, end, type, role, origin, sentence_start, sentence_end, nested)``;
    ``abbreviations`` rows are ``(long_start, long_end, short_start, short_end)``.
    """

    mentions: tuple[tuple[int, int, str, str, str, int, int, bool], ...]
    abbreviations: tuple[tuple[int, int, int, int], ...]


_FUNCTION_WORDS = frozenset("of for and the with in on to a an from by via".split())


def expands(short: str, long: str) -> bool:
    """True when ``long`` spells out the acronym ``short``: each content word of ``long`` is
    entered at its initial, and every letter of ``short`` is used, in order.

    >>> expands("PPO", "Proximal Policy Optimization"), expands("MDPs", "Markov decision processes")
    (True, True)
    >>> expands("PPO", "policy optimization"), expands("ResNet", "Residual Network"), expands("XY", "x")
    (False, True, False)
    """
    if not is_short_form(short):
        return False
    letters = "".join(c for c in (short[:-1] if short.endswith("s") and len(short) > 2 else short).lower() if c.isalnum())
    words = [w for w in re.split(r"[\s\-]+", long.lower()) if w and w not in _FUNCTION_WORDS]
    if not letters or len(words) < 2 or len(words) > len(letters):
        return False

    @lru_cache(maxsize=None)
    def align(i: int, w: int, pos: int) -> bool:
        if i == len(letters):
            return w == len(words) - 1
        if w + 1 < len(words) and words[w + 1][0] == letters[i] and align(i + 1, w + 1, 1):
            return True
        if w >= 0:
            at = words[w].find(letters[i], pos)
            return at >= 0 and align(i + 1, w, at + 1)
        return False

    return align(0, -1, 0)


def alias_table() -> dict[str, str]:
    """Curated aliases: normalized alias -> normalized canonical name."""
    table: dict[str, str] = {}
    for entry in load_gazetteer():
        if entry.surface != entry.canonical:
            table.setdefault(normalize_key(entry.surface), normalize_key(entry.canonical))
    return table


def gazetteer_names() -> dict[str, str]:
    """Normalized canonical key -> the gazetteer's written canonical name ("MuJoCo")."""
    names: dict[str, str] = {}
    for entry in load_gazetteer():
        names.setdefault(normalize_key(entry.canonical), entry.canonical)
    return names


def acronym_map(definitions: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Short -> long keys for acronyms whose every definition in the corpus agrees.

    >>> acronym_map([("SAC", "Soft Actor-Critic"), ("SAC", "soft actor critic"), ("DP", "dynamic programming"),
    ...              ("DP", "differential privacy")])
    {'sac': 'soft actor critic'}
    """
    longs: dict[str, set[str]] = defaultdict(set)
    for short, long in definitions:
        longs[normalize_key(short)].add(normalize_key(long))
    return {short: next(iter(keys)) for short, keys in sorted(longs.items()) if len(keys) == 1}


def _display(surface: str) -> str:
    return _SPACES.sub(" ", clean_name(surface)).strip()


def paper_label(paper: Paper, entities: Sequence[PaperEntity], words: int = 8) -> str:
    """A readable label: the title, else the coined name the paper proposes, else its first words.

    >>> p = Paper(id="1", abstract="We study how temporal distances behave in stochastic settings today.")
    >>> paper_label(p, [])
    'We study how temporal distances behave in stochastic…'
    """
    if paper.title:
        return paper.title
    proposed = [e for e in entities if e.role == "proposed" and e.type == "Method"]
    for entity in proposed:
        coined = [m.text for m in entity.mentions if is_name_like(m.text) and len(m.text) <= 40]
        if coined:
            return min(coined, key=lambda t: (len(t), t))
    if proposed:
        return proposed[0].name
    tokens = paper.abstract.split()
    return " ".join(tokens[:words]) + ("…" if len(tokens) > words else "")


def resolve_corpus(papers: Sequence[Paper], docs: Sequence[DocMentions]) -> list[Extraction]:
    """Turn per-document mentions into :class:`Extraction` records with canonical entities."""
    aliases = alias_table()
    local_maps: list[dict[str, str]] = []
    definitions: list[tuple[str, str]] = []
    for paper, doc in zip(papers, docs):
        local: dict[str, str] = {}
        for long_start, long_end, short_start, short_end in doc.abbreviations:
            short, long = clean_name(paper.abstract[short_start:short_end]), clean_name(paper.abstract[long_start:long_end])
            local[normalize_key(short)] = normalize_key(long)
            definitions.append((short, long))
        local_maps.append(local)
    corpus_acronyms = acronym_map(definitions)

    def key_for(surface: str, local: dict[str, str]) -> str:
        key = normalize_key(surface)
        key = local.get(key) or corpus_acronyms.get(key) or key
        return aliases.get(key, key)

    keyed: list[list[tuple[str, tuple]]] = []
    votes: dict[str, Counter] = defaultdict(Counter)
    surfaces: dict[str, Counter] = defaultdict(Counter)
    for paper, doc, local in zip(papers, docs, local_maps):
        rows = []
        for row in doc.mentions:
            surface = clean_name(paper.abstract[row[0] : row[1]])
            key = key_for(surface, local)
            if not key:
                continue
            votes[key][row[2]] += TYPE_WEIGHT[row[4]]
            surfaces[key][_display(surface)] += 1
            rows.append((key, row))
        keyed.append(rows)

    type_of = {key: max(counter, key=lambda t: (counter[t], -ENTITY_TYPES.index(t))) for key, counter in votes.items()}
    known_names = gazetteer_names()
    name_of = {key: known_names.get(key) or _canonical_name(counter) for key, counter in surfaces.items()}

    extractions = []
    for paper, rows in zip(papers, keyed):
        by_key: dict[str, list[Mention]] = defaultdict(list)
        for key, (start, end, _kind, role, origin, s_start, s_end, nested) in rows:
            by_key[key].append(
                Mention(
                    start=start,
                    end=end,
                    text=paper.abstract[start:end],
                    type=type_of[key],
                    key=key,
                    role=role,
                    sentence=paper.abstract[s_start:s_end],
                    origin=origin,
                    nested=nested,
                )
            )
        entities = []
        for key, mentions in sorted(by_key.items(), key=lambda item: item[1][0].start):
            role = min((m.role for m in mentions), key=ROLES.index)
            evidence = next(m.sentence for m in mentions if m.role == role)
            entities.append(
                PaperEntity(key=key, name=name_of[key], type=type_of[key], role=role, mentions=tuple(mentions), evidence=evidence)
            )
        extractions.append(Extraction(paper=paper, label=paper_label(paper, entities), entities=tuple(entities)))
    return extractions


def _canonical_name(counter: Counter) -> str:
    """The most used written form, preferring long forms over acronyms."""
    def rank(surface: str) -> tuple:
        acronym = surface.isupper() or (is_name_like(surface) and " " not in surface and len(surface) <= 6)
        return (acronym, -counter[surface], surface)

    return min(counter, key=rank)


def entity_aliases(extractions: Iterable[Extraction]) -> dict[str, tuple[str, ...]]:
    """Every written form of each entity key across papers, sorted, capped at ``MAX_ALIASES``."""
    forms: dict[str, set[str]] = defaultdict(set)
    names: dict[str, str] = {}
    for extraction in extractions:
        for entity in extraction.entities:
            names[entity.key] = entity.name
            forms[entity.key].update(_display(m.text) for m in entity.mentions)
    return {key: tuple(sorted(f for f in found if f != names[key])[:MAX_ALIASES]) for key, found in forms.items()}
