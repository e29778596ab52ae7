"""Corpus-level canonicalization: one key per concept across papers, one type, one name.

Runs after the per-document NLP, because the decisions need the whole corpus (each is logged in
the resolution report, ``resolution.jsonl``):

1. acronyms (:mod:`paperkg.extract.resolve.acronyms`): the abstract's own definition, else the ranked
   corpus-wide evidence; an acronym and a long form spelling it out in the same abstract are one;
2. aliases of the curated table and the known lists (Papers with Code, CodeSOTA);
3. spelling variants: keys equal but for spaces and hyphens are one ("HotpotQA" = "Hotpot QA");
4. a trailing generic head word folds into the head entity ("ImageNet dataset" -> ImageNet)
   when the head is an entity of the corpus and the longer name is not itself a known name.

An entity's type is its known type, else the weighted vote of all its mentions; each paper lists
one mention per distinct span.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable, Iterator, Mapping, Sequence

from paperkg.extract.nlp.abbreviations import is_short_form
from paperkg.extract.nlp.gazetteer import KnownRecord, load_curated, load_gazetteer, load_known
from paperkg.extract.nlp.normalize import generic_head, normalize_key, strip_parentheticals, variant_key
from paperkg.extract.nlp.records import DocMentions
from paperkg.extract.nlp.rules import is_name_like
from paperkg.extract.resolve.acronyms import AcronymTable, acronym_table
from paperkg.extract.resolve.tallies import (
    MAX_EVIDENCE,
    DefinitionPass,
    Definitions,
    KeyPass,
    KeyTallies,
    LocalMaps,
    Names,
)
from paperkg.extract.resolve.twins import twin_folds
from paperkg.forks import fork_ranges, indexed_slices
from paperkg.types import ENTITY_TYPES, ROLES, Extraction, Mention, Paper, PaperEntity

#: Which source wins when two candidates cover the same span.
ORIGIN_RANK = {"model": 0, "abbreviation": 1, "proposal": 1, "gazetteer": 2}
MAX_ALIASES = 20
#: Papers per task of the two per-paper passes when they run in forked processes.
PASS_BATCH = 500


@dataclass(frozen=True)
class Resolved:
    """What :func:`resolve` returns: the extractions (a list; :class:`Records` from
    :func:`resolve_stream`, made as they are read) and the resolution report's records."""

    extractions: Iterable[Extraction]
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
    resolution report (see :mod:`paperkg.extract.resolve.report`)."""
    resolved = resolve_stream(papers, docs)
    return replace(resolved, extractions=list(resolved.extractions))


def resolve_stream(papers: Sequence[Paper], docs: Sequence[DocMentions], processes: int = 1) -> Resolved:
    """As :func:`resolve`, with the records as :class:`Records`, which read ``docs`` as they are
    consumed: a corpus's records need never be held at once.

    ``docs`` is read three times (definitions; keys and corpus tallies; records), so a store
    that streams it (:class:`~paperkg.extract.run.store.StoredDocs`) is never held whole either:
    between passes only per-key tallies and each paper's keys remain. The first two passes
    tally batches of papers in ``processes`` forked processes (:mod:`paperkg.extract.resolve.tallies`:
    the same tallies as in one).
    """
    from paperkg.extract.resolve.report import report_records

    known = known_tables()
    names = Names()  # one memo for both passes where they run here
    defined = Definitions()
    for part in fork_ranges(indexed_slices(docs, DefinitionPass(papers, names)), len(papers), PASS_BATCH, processes,
                            what="the acronym definitions"):
        defined.add(part)
    names.learn(defined.names)
    definitions, unspelled, unspelled_at = defined.definitions, defined.unspelled, defined.unspelled_at
    majority: dict[str, tuple[int, str]] = {}
    for (key, kind), weight in defined.votes.items():
        majority[key] = max(majority.get(key, (0, "")), (weight, kind))
    del defined
    acronyms = acronym_table(definitions, known.acronyms(known.curated_aliases), known.known_acronyms(),
                             {key: kind for key, (_, kind) in majority.items()})
    del majority
    local_maps: LocalMaps = defaultdict(dict)
    for short, long, index in definitions:
        short_key = normalize_key(short)
        target = acronyms.local(short_key, normalize_key(long))
        entry = local_maps[index].setdefault(short_key, (target, set(), f"{long} ({short})"))
        entry[1].add(short)
    for (short, long, index) in unspelled_at:
        # an abstract that defines an acronym its own way means it, even when the letters do not
        # align: no corpus-wide or known-list meaning is put on it there ("SSD")
        local_maps[index].setdefault(normalize_key(short), (normalize_key(short), set(), ""))[1].add(short)
    del definitions, unspelled_at

    # 1-2. acronyms and aliases, per mention
    tallies = KeyTallies()
    key_pass = KeyPass(papers, local_maps, acronyms, known, names)
    for part in fork_ranges(indexed_slices(docs, key_pass), len(papers), PASS_BATCH, processes, what="the mentions' keys"):
        tallies.add(part)
    del local_maps, names, key_pass
    paper_keys, paper_count, written, key_votes, key_forms, key_rules, key_evidence, form_keys = (
        tallies.paper_keys, tallies.paper_count, tallies.written, tallies.key_votes, tallies.key_forms,
        tallies.key_rules, tallies.key_evidence, tallies.form_keys)
    del tallies
    # 3-4. spelling variants and generic heads, corpus-wide
    most_written: dict[str, tuple[int, str]] = {}
    for (key, surface), count in written.items():
        most_written[key] = max(most_written.get(key, (0, "")), (count, surface))
    named = frozenset(key for key, (_, form) in most_written.items()
                      if any(is_name_like(w) for w in strip_parentheticals(form).split()))
    hyphenated = frozenset(key for key, (_, form) in most_written.items() if "-" in form)
    del written, most_written
    final, fold_rule, kept_apart = fold_keys(paper_count, known, named)
    # 5. twins, over the representatives (rules and safety in paperkg.extract.resolve.twins)
    rep_votes: dict[str, Counter] = defaultdict(Counter)
    for (key, kind), weight in key_votes.items():
        rep_votes[final.get(key, key)][kind] += weight
    rep_papers: Counter = Counter()
    for key, count in paper_count.items():
        rep_papers[final.get(key, key)] += count
    twin, twin_rule, fold_evidence, twin_apart = twin_folds(
        rep_papers, {key: known.types.get(key) or _vote(counter) for key, counter in rep_votes.items()},
        known.types, {short: long for short, long in acronyms.expansion.items() if " " in long and len(short) <= 8},
        named, hyphenated)
    del rep_votes, rep_papers
    for key in paper_count:
        rep = final.get(key, key)
        if rep in twin:
            final[key] = twin[rep]
            fold_rule[key] = " + ".join(r for r in (fold_rule.get(key), twin_rule[rep]) if r)
            fold_evidence.setdefault(key, fold_evidence[rep])
    kept_apart += twin_apart + list(acronyms.kept_apart) + [
        {"keys": sorted((short, long)), "reason": f"defined in {paper_id}, but the long form does not spell the acronym"}
        for short, long, paper_id in unspelled if short != long]
    del unspelled

    votes: dict[str, Counter] = defaultdict(Counter)
    for (key, kind), weight in key_votes.items():
        votes[final.get(key, key)][kind] += weight
    rules: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key, base, rule in key_rules:
        rules[key, base].add(rule)
    surfaces: dict[str, Counter] = defaultdict(Counter)
    merged: dict[str, dict[str, tuple[set[str], set[str], list[str]]]] = defaultdict(dict)
    for (key, base, form), count in key_forms.items():
        target = final.get(key, key)
        surfaces[target][form] += count
        if base != target:
            entry = merged[target].setdefault(base, (set(), set(), []))
            entry[0].update(" + ".join(r for r in (rule, fold_rule.get(key)) if r) or "spacing or hyphen variant"
                            for rule in rules.get((key, base), {""}))
            entry[1].add(form)
            for note in key_evidence.get((key, base), []) + ([fold_evidence[key]] if key in fold_evidence else []):
                if note not in entry[2] and len(entry[2]) < MAX_EVIDENCE + 1:
                    entry[2].append(note)
    del key_votes, key_forms, key_rules, rules, key_evidence, fold_evidence
    type_of = {key: known.types.get(key) or _vote(counter) for key, counter in votes.items()}
    name_of = {key: known.names.get(key) or _canonical_name(counter, key, form_keys)
               for key, counter in surfaces.items()}
    del votes, surfaces, form_keys

    final_count: Counter = Counter()
    for codes in paper_keys:
        final_count.update({final.get(key, key) for key in codes[1::2] if key})
    report = report_records(merged, name_of, final_count, acronyms, kept_apart)
    del paper_count, final_count, merged
    return Resolved(Records(papers, docs, paper_keys, final, type_of, name_of, known), report, acronyms)


@dataclass(frozen=True, eq=False, repr=False)  # a corpus's tables: never compared, never printed
class Records:
    """The records of :func:`resolve_stream`: iterating reads ``docs`` once more and makes each
    paper's record as it goes; :meth:`record` makes one from a document read elsewhere (a batch
    sent to a forked process, :func:`paperkg.extract.run.corpus.stream_stored`)."""

    papers: Sequence[Paper]
    docs: Sequence[DocMentions]
    codes: list[tuple[str, ...]]  # per paper: base and key of each mention (pass 2)
    final: dict[str, str]
    type_of: dict[str, str]
    name_of: dict[str, str]
    known: KnownTables

    def __iter__(self) -> Iterator[Extraction]:
        return map(self.record, range(len(self.papers)), self.docs)

    def record(self, index: int, doc: DocMentions) -> Extraction:
        return _extraction(self.papers[index], doc, self.codes[index], self.final, self.type_of, self.name_of, self.known)


def _vote(counter: Counter) -> str:
    """The type most (weighted) mentions give, ties by the order of ENTITY_TYPES."""
    return max(counter, key=lambda t: (counter[t], -ENTITY_TYPES.index(t)))


def _extraction(paper: Paper, doc: DocMentions, codes: tuple[str, ...], final: dict[str, str],
                type_of: dict[str, str], name_of: dict[str, str], known: KnownTables) -> Extraction:
    """One paper's record from its stored mentions and the keys of the second pass."""
    rows: list[tuple[str, tuple]] = []
    forms: dict[str, set[str]] = defaultdict(set)
    for base, key, row in zip(codes[::2], codes[1::2], doc.mentions):
        if key:
            target = final.get(key, key)
            rows.append((target, row))
            forms[target].add(base)
    # Mentions of one sentence share its string (and the evidence does too): at 95k papers,
    # one copy per mention was a tenth of the build's memory.
    sentences: dict[tuple[int, int], str] = {}
    by_key: dict[str, list[Mention]] = defaultdict(list)
    nested = _inside_others((row[0], row[1]) for _, row in rows)
    for key, (start, end, _kind, role, origin, s_start, s_end, _flag) in _distinct_spans(rows):
        sentence = sentences.get((s_start, s_end))
        if sentence is None:
            sentence = sentences[s_start, s_end] = paper.abstract[s_start:s_end]
        by_key[key].append(Mention(start=start, end=end, text=paper.abstract[start:end], type=type_of[key], key=key,
                                   role=role, sentence=sentence, origin=origin, nested=(start, end) in nested))
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
    return Extraction(paper=paper, label=paper_label(paper, entities), entities=tuple(entities))


def fold_keys(papers: Mapping[str, int], known: KnownTables,
              named: frozenset[str] = frozenset()) -> tuple[dict[str, str], dict[str, str], list[dict]]:
    """Corpus-wide key merges: spelling variants into one key, generic heads into the head.

    A name with a generic head word folds into its head when the head is an entity of the
    corpus (or a known name), else into its most frequent sibling with the same head
    ("iterative method" -> "iterative algorithm"). It stays apart when it is a known name and its
    head is not, or when the head is a proper name (mostly written "MATH", "CoT") and the longer
    one is not ("math problems" is no MATH dataset): ``named`` holds the keys mostly written as a
    proper name. ``papers`` is each key's paper count.
    Returns key -> final key (only keys that change), key -> rule, and the near matches kept apart.

    >>> t = KnownTables({}, {}, {}, {}, {})
    >>> final, rule, apart = fold_keys({"hotpot qa": 1, "hotpotqa": 2, "imagenet dataset": 1, "imagenet": 1,
    ...                                 "iterative method": 1, "iterative algorithm": 2}, t)
    >>> final == {"hotpot qa": "hotpotqa", "imagenet dataset": "imagenet", "iterative method": "iterative algorithm"}
    True
    >>> rule["imagenet dataset"], rule["iterative method"]
    ('generic head word', 'generic head word (sibling)')
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for key in papers:
        groups[variant_key(key)].append(key)

    def representative(keys: list[str]) -> str:
        return min(keys, key=lambda k: (k not in known.types, -papers.get(k, 0), -k.count(" "), k))

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
            target = min(keys, key=lambda k: (k not in known.types, -papers.get(k, 0), k))
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
    by_key: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for span, (key, _) in best.items():
        by_key[key].append(span)
    inside = set()
    for spans in by_key.values():
        inside |= _inside_others(spans)
    return sorted(((key, row) for span, (key, row) in best.items() if span not in inside),
                  key=lambda item: (item[1][0], item[1][1]))


def _inside_others(spans: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """The spans strictly inside another, different span of ``spans``: sorted by start (longest
    first), a span is inside an earlier one exactly when some earlier span ends at or after its
    end; one pass, n·log n.

    >>> sorted(_inside_others([(0, 10), (2, 5), (0, 10), (0, 4), (8, 12), (12, 14)]))
    [(0, 4), (2, 5)]
    """
    inside, reach = set(), -1
    for start, end in sorted(set(spans), key=lambda span: (span[0], -span[1])):
        if reach >= end:
            inside.add((start, end))
        reach = max(reach, end)
    return inside


def _canonical_name(counter: Counter, key: str = "", keys: Mapping[str, str] = {}) -> str:
    """The most used written form, preferring forms of the key itself (not a variant with a
    generic head word), and long forms over acronyms. ``keys`` holds forms already normalized.

    >>> _canonical_name(Counter({"ImageNet dataset": 3, "ImageNet": 1, "IN": 5}), "imagenet")
    'ImageNet'
    """
    def rank(surface: str) -> tuple:
        acronym = surface.isupper() or (is_name_like(surface) and " " not in surface and len(surface) <= 6)
        return (variant_key(keys.get(surface) or normalize_key(surface)) != variant_key(key), acronym,
                -counter[surface], surface)

    return min(counter, key=rank)
