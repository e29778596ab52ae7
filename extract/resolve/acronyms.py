"""Acronyms resolved with evidence, corpus-wide: plain functions over keys and definitions.

An abstract that defines "Soft Actor-Critic (SAC)" says what SAC means *there*. Across the
corpus, the evidence is ranked: the curated table first; then the corpus, when it defines the
acronym one way in two or more abstracts; then the known lists (Papers with Code, CodeSOTA);
and last a definition made once in one abstract. An acronym the corpus defines in two ways is
ambiguous: it resolves only inside the abstracts that define it (or that also use a long form
spelling it out), never corpus-wide.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

from paperkg.extract.nlp.abbreviations import is_short_form
from paperkg.extract.nlp.normalize import normalize_key, variant_key

FUNCTION_WORDS = frozenset("of for and the with in on to a an from by via".split())


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
    words = [w for w in re.split(r"[\s\-]+", long.lower()) if w and w not in FUNCTION_WORDS]
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


def is_fragment(long_key: str, of: str) -> bool:
    """A long form cut short at its start: a proper word suffix of another long form.

    >>> is_fragment("policy optimization", "proximal policy optimization"), is_fragment("x", "x")
    (True, False)
    """
    return long_key != of and of.endswith(" " + long_key)


@dataclass(frozen=True)
class AcronymTable:
    """Corpus-wide decisions: ``expansion`` (short key -> long key) with its ``rule``, and the
    ``ambiguous`` acronyms with their competing long forms (short key -> long keys)."""

    expansion: dict[str, str]
    rule: dict[str, str]
    ambiguous: dict[str, tuple[str, ...]]
    definitions: dict[str, dict[str, int]]

    def local(self, short_key: str, long_key: str) -> str:
        """What a definition inside one abstract means there: its own long form, unless that is a
        cut-off tail of the corpus-wide expansion ("policy optimization (PPO)")."""
        wide = self.expansion.get(short_key)
        return wide if wide and is_fragment(long_key, wide) else long_key


def acronym_table(
    definitions: Iterable[tuple[str, str, int]],
    curated: Mapping[str, str] | None = None,
    known: Mapping[str, str] | None = None,
) -> AcronymTable:
    """Rank the evidence for each acronym. ``definitions`` are ``(short, long, paper)`` as written;
    ``curated`` and ``known`` map short keys to long keys.

    >>> t = acronym_table([("SAC", "Soft Actor-Critic", 0), ("SAC", "soft actor critic", 1), ("DP", "dynamic programming", 0),
    ...                    ("DP", "differential privacy", 2), ("PPO", "policy optimization", 3), ("OPT", "Open-world Prompt Tuning", 4)],
    ...                   curated={"ppo": "proximal policy optimization"}, known={"opt": "opt"})
    >>> t.expansion["sac"], t.rule["sac"], t.ambiguous["dp"], t.expansion["ppo"], t.expansion["opt"], t.rule["opt"]
    ('soft actor critic', 'corpus', ('differential privacy', 'dynamic programming'), 'proximal policy optimization', 'opt', 'known list')
    >>> t.local("ppo", "policy optimization"), t.local("opt", "open world prompt tuning")
    ('proximal policy optimization', 'open world prompt tuning')
    """
    curated, known = dict(curated or {}), dict(known or {})
    papers: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for short, long, paper in definitions:
        short_key, long_key = normalize_key(short), normalize_key(long)
        if short_key and long_key and (expands(short, long) or short_key in curated or short_key in known):
            papers[short_key][long_key].add(paper)
    expansion: dict[str, str] = {}
    rule: dict[str, str] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    counts: dict[str, dict[str, int]] = {}
    for short_key in sorted(set(papers) | set(curated) | set(known)):
        expected = curated.get(short_key) or known.get(short_key)
        groups = _merge_long_forms(papers.get(short_key, {}), expected)
        counts[short_key] = {long: len(found) for long, found in sorted(groups.items())}
        if short_key in curated:
            expansion[short_key], rule[short_key] = curated[short_key], "curated"
        elif len(groups) > 1:
            if expected in groups:
                expansion[short_key], rule[short_key] = expected, "known list and corpus"
            else:
                ambiguous[short_key] = tuple(sorted(groups))
        elif groups:
            (long_key, found), = groups.items()
            if len(found) >= 2 or not expected:
                expansion[short_key] = long_key
                rule[short_key] = "corpus" if len(found) >= 2 else "corpus, one abstract"
            else:
                expansion[short_key], rule[short_key] = expected, "known list"
        elif expected:
            expansion[short_key], rule[short_key] = expected, "known list"
    return AcronymTable(expansion, rule, ambiguous, counts)


def _merge_long_forms(longs: Mapping[str, set[int]], expected: str | None) -> dict[str, set[int]]:
    """Long forms that differ only in spacing, or are cut-off tails of another, are one."""
    targets = sorted(set(longs) | ({expected} if expected else set()), key=lambda k: (-len(k), k))
    merged: dict[str, set[int]] = {}
    by_variant: dict[str, str] = {}
    for long in sorted(longs, key=lambda k: (-len(k), k)):
        whole = next((t for t in targets if is_fragment(long, t)), long)
        whole = by_variant.setdefault(variant_key(whole), whole)
        merged.setdefault(whole, set()).update(longs[long])
    return merged
