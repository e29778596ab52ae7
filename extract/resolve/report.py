"""The entity-resolution report: every merge, every ambiguous acronym, every near match kept apart.

``paperkg build`` writes it as ``resolution.jsonl``, one JSON object per line, sorted by kind and
key, so that a user can see (and challenge) why two written forms are one node or two:

``{"kind": "merge", "key", "name", "papers", "merged": [{"key", "forms", "rule", "evidence"}, ...]}``
    the written forms (``forms``, grouped by their own ``key``) that became the entity ``key``,
    the rule that merged them: an acronym (defined in the abstract; or corpus-wide by the
    curated table, the corpus defining it so in two or more abstracts, the known lists), a
    curated or known-list alias, a spacing or hyphen variant, a generic head word, a twin
    (:mod:`paperkg.extract.resolve.twins`: word forms, spelling table, acronym inside a name,
    head word, modifier alone, efficiency metric table); and the evidence, a few lines: the
    paper and its definition as written ("W2203: Markov decision processes (MDPs)"), the
    abstracts defining it, the words that differ;
``{"kind": "ambiguous_acronym", "acronym", "long_forms": {long form key: abstracts}}``
    an acronym the corpus defines in two or more ways: it resolves only inside each abstract;
``{"kind": "kept_apart", "keys": [a, b], "reason"}``
    two entities whose keys nearly match but stay apart: a generic head word on a known name
    ("traveling salesman problem"), a different number or version (CIFAR-10 / CIFAR-100),
    types that disagree, or a definition whose long form does not spell the acronym
    ("Laplace Approximation (LLA)").
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Mapping

from paperkg.atomic import atomic_open, json_line
from paperkg.extract.resolve.acronyms import AcronymTable

_DIGITS = re.compile(r"\d+")


def report_records(
    merged: Mapping[str, Mapping[str, tuple[set[str], set[str], list[str]]]],
    names: Mapping[str, str],
    papers: Mapping[str, int],
    acronyms: AcronymTable,
    kept_apart: Iterable[dict],
) -> list[dict]:
    """The report's records, deterministic (sorted by kind, then key)."""
    records = []
    for key in sorted(merged):
        parts = [{"key": base, "forms": sorted(forms), "rule": "; ".join(sorted(rules)), "evidence": notes}
                 for base, (rules, forms, notes) in sorted(merged[key].items())]
        records.append({"kind": "merge", "key": key, "name": names.get(key, key), "papers": papers.get(key, 0),
                        "merged": parts})
    for short in sorted(acronyms.ambiguous):
        records.append({"kind": "ambiguous_acronym", "acronym": short, "long_forms": acronyms.definitions[short]})
    apart = {tuple(sorted(item["keys"])): item["reason"] for item in kept_apart}
    apart.update({pair: "different number or version" for pair in version_pairs(papers)})
    for pair in sorted(apart):
        records.append({"kind": "kept_apart", "keys": list(pair), "reason": apart[pair]})
    return records


def version_pairs(papers: Mapping[str, int], min_papers: int = 2) -> list[tuple[str, str]]:
    """Keys (in ``min_papers`` or more papers) equal but for their numbers: "cifar10" / "cifar100".

    >>> version_pairs({"cifar10": 5, "cifar100": 3, "gpt4": 2, "gpt3": 1, "mujoco": 9})
    [('cifar10', 'cifar100')]
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for key, count in papers.items():
        if count >= min_papers and _DIGITS.search(key):
            groups[_DIGITS.sub("#", key)].append(key)
    pairs = []
    for keys in groups.values():
        keys.sort()
        pairs += [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]
    return sorted(pairs)


def write_resolution(records: Iterable[dict], path: str | Path) -> Path:
    """Write ``resolution.jsonl`` (atomically); returns its path."""
    path = Path(path)
    with atomic_open(path) as handle:
        for record in records:
            handle.write(json_line(record, sort_keys=True))
    return path
