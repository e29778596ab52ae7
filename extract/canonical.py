"""Corpus-level canonicalization: one key per concept across papers, one type, one name.

Runs after the per-document NLP, because the decisions need the whole corpus (each is logged in
the resolution report, ``resolution.jsonl``):

1. acronyms (:mod:`paperkg.extract.acronyms`): the abstract's own definition, else the ranked
   corpus-wide evidence; an acronym and a long form spelling it out in the same abstract are one;
2. aliases of the curated table and the known lists (Papers with Code, CodeSOTA);
3. spelling variants: keys equal but for spaces and hyphens are one ("HotpotQA" = "Hotpot QA");
4. a trailing generic head word folds into the head entity ("ImageNet dataset" -> ImageNet)
   when the head is an entity of the corpus and the longer name is not itself a known name.

An entity's type is its known type, else the weighted vote of all its mentions; each paper lists
one mention per distinct span.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

from paperkg.extract.abbreviations import is_short_form
from paperkg.extract.acronyms import AcronymTable, acronym_table, expands
from paperkg.extract.gazetteer import KnownRecord, load_curated, load_gazetteer, load_known
from paperkg.extract.markup import clean_name
from paperkg.extract.normalize import generic_head, normalize_key, strip_parentheticals, variant_key
from paperkg.extract.rules import is_name_like
from paperkg.types import ENTITY_TYPES, ROLES, Extraction, Mention, Paper, PaperEntity

#: How much one mention's type counts in the vote, by where the mention came from.
TYPE_WEIGHT = {"gazetteer": 4, "abbreviation": 2, "proposal": 2, "model": 1}
#: Which source wins when two candidates cover the same span.
ORIGIN_RANK = {"model": 0, "abbreviation": 1, "proposal": 1, "gazetteer": 2}
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


@dataclass(frozen=True)
class Resolved:
    """What :func:`resolve` returns: the extractions and the resolution report's records."""

    extractions: list[Extraction]
    report: list[dict] = field(default_factory=list)
    acronyms: AcronymTable | None = None


@dataclass(frozen=True)
class KnownTables:
    """The curated table and the known lists, as key lookups."""

    curated_aliases: dict[str, str]
    known_aliases: dict[str, str]
    types: dict[str, str]
    names: dict[str, str]
    records: dict[str, KnownRecord]
    acronym_names: frozenset[str] = frozenset()

    def alias(self, key: str) -> str:
        return self.curated_aliases.get(key) or self.known_aliases.get(key) or key

    def acronyms(self, table: dict[str, str]) -> dict[str, str]:
        return {short: long for short, long in table.items() if short != long and " " not in short}

    def known_acronyms(self) -> dict[str, str]:
        """Acronyms of the known lists: short -> long form, or -> itself for a known name such as
        "OPT" or "SAR" (so that one abstract's "search and rescue (SAR)" does not capture it)."""
        return {**{key: key for key in self.acronym_names}, **self.acronyms(self.known_aliases)}


@lru_cache(maxsize=1)
def known_tables() -> KnownTables:
    """Lookups by normalized key; the curated table wins over the known lists."""
    curated_aliases: dict[str, str] = {}
    types: dict[str, str] = {}
    names: dict[str, str] = {}
    for entry in load_curated():
        canonical = normalize_key(entry.canonical)
        if entry.surface != entry.canonical:
            curated_aliases.setdefault(normalize_key(entry.surface), canonical)
        types.setdefault(canonical, entry.type)
        names.setdefault(canonical, entry.canonical)
    known_aliases: dict[str, str] = {}
    for entry in load_gazetteer():
        canonical = normalize_key(entry.canonical)
        if entry.surface != entry.canonical and normalize_key(entry.surface) not in curated_aliases:
            known_aliases.setdefault(normalize_key(entry.surface), canonical)
        types.setdefault(canonical, entry.type)
    records: dict[str, KnownRecord] = {}
    for record in load_known():
        canonical = normalize_key(record.name)
        types.setdefault(canonical, record.type)
        if record.id:
            records.setdefault(canonical, record)
        if record.source != "codesota-metric":
            names.setdefault(canonical, record.name)
    acronym_names = frozenset(
        normalize_key(surface) for surface in {e.surface for e in load_gazetteer()} | {r.name for r in load_known()}
        if " " not in surface and surface.isupper() and is_short_form(surface))
    return KnownTables(curated_aliases, known_aliases, types, names, records, acronym_names - set(curated_aliases))


def acronym_map(definitions: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Short -> long keys for acronyms the corpus defines one way only (no known lists).

    >>> acronym_map([("SAC", "Soft Actor-Critic"), ("SAC", "soft actor critic"), ("DP", "dynamic programming"),
    ...              ("DP", "differential privacy")])
    {'sac': 'soft actor critic'}
    """
    table = acronym_table((short, long, index) for index, (short, long) in enumerate(definitions))
    return table.expansion


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


def resolve(papers: Sequence[Paper], docs: Sequence[DocMentions]) -> Resolved:
    """Turn per-document mentions into :class:`Extraction` records with canonical entities, with the
    resolution report (see :mod:`paperkg.extract.resolution`)."""
    from paperkg.extract.resolution import report_records

    known = known_tables()
    definitions = []
    for index, (paper, doc) in enumerate(zip(papers, docs)):
        for long_start, long_end, short_start, short_end in doc.abbreviations:
            definitions.append((clean_name(paper.abstract[short_start:short_end]),
                                clean_name(paper.abstract[long_start:long_end]), index))
    acronyms = acronym_table(definitions, known.acronyms(known.curated_aliases), known.known_acronyms())
    local_maps: list[dict[str, str]] = [{} for _ in papers]
    for short, long, index in definitions:
        local_maps[index][normalize_key(short)] = acronyms.local(normalize_key(short), normalize_key(long))

    # 1-2. acronyms and aliases, per mention: (surface, base key, first key, rule)
    first: list[list[tuple[str, str, str, str]]] = []
    for paper, doc, local in zip(papers, docs, local_maps):
        rows = []
        for row in doc.mentions:
            surface = clean_name(paper.abstract[row[0] : row[1]])
            base = normalize_key(surface)
            rows.append((surface, base, *_first_key(base, local, acronyms, known)))
        first.append(_same_abstract_acronyms(rows))
    # 3-4. spelling variants and generic heads, corpus-wide
    papers_of: dict[str, set[int]] = defaultdict(set)
    for index, rows in enumerate(first):
        for _, _, key, _ in rows:
            if key:
                papers_of[key].add(index)
    written: dict[str, Counter] = defaultdict(Counter)
    for rows in first:
        for surface, base, key, _ in rows:
            if base == key:
                written[key][surface] += 1
    named = frozenset(key for key, forms in written.items() if any(
        is_name_like(w) for w in strip_parentheticals(max(forms, key=lambda f: (forms[f], f))).split()))
    final, fold_rule, kept_apart = fold_keys(papers_of, known, named)

    keyed: list[list[tuple[str, tuple]]] = []
    forms_in: list[dict[str, set[str]]] = []
    votes: dict[str, Counter] = defaultdict(Counter)
    surfaces: dict[str, Counter] = defaultdict(Counter)
    merged: dict[str, dict[str, tuple[set[str], set[str]]]] = defaultdict(dict)
    for doc, rows in zip(docs, first):
        kept = []
        forms: dict[str, set[str]] = defaultdict(set)
        for (surface, base, key, rule), row in zip(rows, doc.mentions):
            if not key:
                continue
            target = final.get(key, key)
            votes[target][row[2]] += TYPE_WEIGHT[row[4]]
            surfaces[target][_display(surface)] += 1
            if base != target:
                rules = " + ".join(r for r in (rule, fold_rule.get(key)) if r) or "spacing or hyphen variant"
                entry = merged[target].setdefault(base, (set(), set()))
                entry[0].add(rules)
                entry[1].add(_display(surface))
            kept.append((target, row))
            forms[target].add(base)
        keyed.append(kept)
        forms_in.append(forms)

    type_of = {key: known.types.get(key) or max(counter, key=lambda t: (counter[t], -ENTITY_TYPES.index(t)))
               for key, counter in votes.items()}
    name_of = {key: known.names.get(key) or _canonical_name(counter, key) for key, counter in surfaces.items()}

    extractions = []
    for paper, rows, forms in zip(papers, keyed, forms_in):
        by_key: dict[str, list[Mention]] = defaultdict(list)
        for key, (start, end, _kind, role, origin, s_start, s_end, _flag) in _distinct_spans(rows):
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
                    nested=_nested(start, end, rows),
                )
            )
        entities = []
        for key, mentions in sorted(by_key.items(), key=lambda item: item[1][0].start):
            role = min((m.role for m in mentions), key=ROLES.index)
            evidence = next(m.sentence for m in mentions if m.role == role)
            record = known.records.get(key)
            entities.append(
                PaperEntity(key=key, name=name_of[key], type=type_of[key], role=role, mentions=tuple(mentions),
                            evidence=evidence, pwc_id=record.pwc_id if record else None,
                            codesota_id=record.codesota_id if record else None,
                            area=record.area if record else None, record_url=record.record_url if record else None,
                            alias_keys=tuple(sorted(forms[key] | {key})))
            )
        extractions.append(Extraction(paper=paper, label=paper_label(paper, entities), entities=tuple(entities)))
    final_papers: dict[str, set[int]] = defaultdict(set)
    for key, found in papers_of.items():
        final_papers[final.get(key, key)] |= found
    report = report_records(merged, name_of, {k: len(v) for k, v in final_papers.items()}, acronyms, kept_apart)
    return Resolved(extractions, report, acronyms)


def _first_key(base: str, local: dict[str, str], acronyms: AcronymTable, known: KnownTables) -> tuple[str, str]:
    """The key after acronyms and aliases, and the rule that changed it ("" when none did)."""
    if base in local:
        key, rule = local[base], "acronym defined in the abstract"
    elif base in acronyms.expansion:
        key, rule = acronyms.expansion[base], f"acronym: {acronyms.rule[base]}"
    else:
        key, rule = base, ""
    aliased = known.alias(key)
    if aliased != key:
        key, rule = aliased, rule or ("curated alias" if key in known.curated_aliases else "known-list alias")
    return key, rule if key != base else ""


def _same_abstract_acronyms(rows: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """An acronym left unresolved joins a long form of the same abstract that spells it out."""
    longs = [(surface, key) for surface, _, key, _ in rows if " " in surface or "-" in surface]
    out = []
    for surface, base, key, rule in rows:
        if key == base and is_short_form(surface) and " " not in surface:
            match = next((k for s, k in longs if k != key and expands(surface, s)), None)
            if match:
                key, rule = match, "acronym and long form in the same abstract"
        out.append((surface, base, key, rule))
    return out


def fold_keys(papers_of: dict[str, set[int]], known: KnownTables,
              named: frozenset[str] = frozenset()) -> tuple[dict[str, str], dict[str, str], list[dict]]:
    """Corpus-wide key merges: spelling variants into one key, generic heads into the head.

    A name with a generic head word folds into its head when the head is an entity of the
    corpus (or a known name), else into its most frequent sibling with the same head
    ("iterative method" -> "iterative algorithm"). It stays apart when it is a known name and its
    head is not, or when the head is a proper name (mostly written "MATH", "CoT") and the longer
    one is not ("math problems" is no MATH dataset): ``named`` holds the keys mostly written as a
    proper name.
    Returns key -> final key (only keys that change), key -> rule, and the near matches kept apart.

    >>> t = KnownTables({}, {}, {}, {}, {})
    >>> final, rule, apart = fold_keys({"hotpot qa": {1}, "hotpotqa": {2, 3}, "imagenet dataset": {4}, "imagenet": {5},
    ...                                 "iterative method": {6}, "iterative algorithm": {7, 8}}, t)
    >>> final == {"hotpot qa": "hotpotqa", "imagenet dataset": "imagenet", "iterative method": "iterative algorithm"}
    True
    >>> rule["imagenet dataset"], rule["iterative method"]
    ('generic head word', 'generic head word (sibling)')
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for key in papers_of:
        groups[variant_key(key)].append(key)

    def papers(keys: Iterable[str]) -> int:
        return len(set().union(*(papers_of.get(k, set()) for k in keys)))

    def representative(keys: list[str]) -> str:
        return min(keys, key=lambda k: (k not in known.types, -len(papers_of.get(k, ())), -k.count(" "), k))

    rep = {key: representative(keys) for keys in groups.values() for key in keys}
    final = {key: target for key, target in rep.items() if key != target}
    rule = {key: "spacing or hyphen variant" for key in final}
    kept_apart = []
    siblings: dict[str, list[str]] = defaultdict(list)
    for key in sorted(set(rep.values())):
        head = generic_head(key)
        if not head:
            continue
        head = known.alias(head)
        head_rep = rep[groups[variant_key(head)][0]] if variant_key(head) in groups else None
        target = head_rep or (head if head in known.types else None)
        if target is None:
            siblings[variant_key(head)].append(key)
            continue
        proper = any(k in named for k in groups[variant_key(key)])
        blocked = "known name" if key in known.types and target not in known.types else (
            "its head is a proper name, it is not" if target in named and not proper else "")
        if blocked:
            kept_apart.append({"keys": [key, target], "reason": blocked})
            continue
        for member in groups[variant_key(key)]:
            final[member], rule[member] = target, ("spacing or hyphen variant + " if member != key else "") + "generic head word"
    for keys in siblings.values():
        if len(keys) > 1:
            target = min(keys, key=lambda k: (k not in known.types, -papers([k]), k))
            for key in keys:
                if key != target and key not in known.types:
                    for member in groups[variant_key(key)]:
                        final[member], rule[member] = target, "generic head word (sibling)"
    return final, rule, kept_apart


def _distinct_spans(rows: list[tuple[str, tuple]]) -> list[tuple[str, tuple]]:
    """One row per occurrence: where two sources found the same span, the best-ranked one stays;
    a span inside another span of the same entity is the same occurrence ("Large language
    models" inside "Large language models (LLMs)") and goes.

    >>> rows = [("llm", (0, 21, "Method", "used", "gazetteer")), ("llm", (0, 28, "Method", "used", "model")),
    ...         ("llm", (0, 21, "Method", "used", "model")), ("mujoco", (40, 46, "Benchmark", "used", "gazetteer"))]
    >>> [(key, row[0], row[1]) for key, row in _distinct_spans(rows)]
    [('llm', 0, 28), ('mujoco', 40, 46)]
    """
    best: dict[tuple[int, int], tuple[str, tuple]] = {}
    for key, row in rows:
        span = (row[0], row[1])
        if span not in best or ORIGIN_RANK.get(row[4], 9) < ORIGIN_RANK.get(best[span][1][4], 9):
            best[span] = (key, row)
    kept = [(key, row) for (start, end), (key, row) in best.items()
            if not any(k == key and s <= start and end <= e and (s, e) != (start, end) for (s, e), (k, _) in best.items())]
    return sorted(kept, key=lambda item: (item[1][0], item[1][1]))


def _nested(start: int, end: int, rows: list[tuple[str, tuple]]) -> bool:
    """Strictly inside another, different span of the paper."""
    return any(r[0] <= start and end <= r[1] and (r[0], r[1]) != (start, end) for _, r in rows)


def _canonical_name(counter: Counter, key: str = "") -> str:
    """The most used written form, preferring forms of the key itself (not a variant with a
    generic head word), and long forms over acronyms.

    >>> _canonical_name(Counter({"ImageNet dataset": 3, "ImageNet": 1, "IN": 5}), "imagenet")
    'ImageNet'
    """
    def rank(surface: str) -> tuple:
        acronym = surface.isupper() or (is_name_like(surface) and " " not in surface and len(surface) <= 6)
        return (variant_key(normalize_key(surface)) != variant_key(key), acronym, -counter[surface], surface)

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
