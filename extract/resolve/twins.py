"""Twins: two keys of the corpus that name one concept, folded with a rule and its evidence.

Runs after the spelling and generic-head folds of :func:`~paperkg.extract.resolve.canonical.fold_keys`,
over their representatives. Each rule is narrow, and every fold must also be safe: the two
keys' types agree (:func:`~paperkg.extract.resolve.acronyms.types_agree`; a known dataset,
benchmark or model never joins a task or a metric), and their numbers and version marks are
the same (CIFAR-10 / CIFAR-100, GPT-4 / GPT-4V, LoRA / LoRA+ stay apart).

1. **word forms**: the same words but for an adjective / noun / participle ending
   ("differentially private" | "differential privacy", "robotic manipulation" | "robot
   manipulation", "domain adaption" | "domain adaptation", "pre-train" | "pre-training");
2. **spelling table**: a few phrases written two ways ("neural nets", "min-max", "T2I");
3. **acronym inside a name**: a word that is an acronym the corpus (or the curated table)
   resolves, spelled out, when the spelled-out name is an entity too ("goal-conditioned RL" |
   "goal-conditioned reinforcement learning");
4. **head words**: "X model", "X architecture", "X function", "X equation", "X activation" and
   X, when both are entities of one type and X is a name of two or more words, a proper name or
   an acronym ("Gaussian process models" | "Gaussian process", "Transformer architecture" |
   "Transformer", "ReLU activations" | rectified linear unit), into the one with more papers;
5. **modifier alone**: a compound modifier written as an entity ("self-supervised", "in-context")
   joins the one entity it most often modifies ("self-supervised learning"), when that one has at
   least twice the papers of any other and half those of the modifier;
6. **efficiency metrics**: a short curated table (memory, compute, running time, latency, FLOPs).

Plain functions over keys, paper counts and types.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Mapping

from paperkg.extract.nlp.normalize import variant_key
from paperkg.extract.resolve.acronyms import types_agree

#: Word endings that turn one form of a word into another of the same concept, as pairs
#: (either way round), with the shortest stem each needs.
SUFFIX_PAIRS = (
    ("ally", "al", 4), ("", "al", 5), ("", "ic", 5), ("ion", "ive", 4), ("ion", "ation", 4), ("te", "cy", 4),
    ("", "ing", 5), ("", "ed", 5), ("ed", "ing", 3), ("e", "ing", 3), ("e", "ed", 3), ("e", "ation", 4),
    ("", "ity", 5),
)
#: Words whose -ing and -ed forms name something else ("sample complexity" is no "sampling
#: complexity", "code" no "coding", "reward model" no "reward modeling").
_OTHER_SENSE = frozenset("model sample code prompt structure label feature pattern signal learn".split())
#: Phrases written two ways (normalized keys, word-aligned).
SPELLINGS = {"neural net": "neural network", "min max": "minimax", "t2i": "text to image",
             "neural symbolic": "neuro symbolic", "max min": "maximin"}
#: Head words after a name that keep its meaning ("Gaussian process models").
HEAD_WORDS = frozenset({"model", "architecture", "function", "equation", "activation"})
#: The efficiency metrics the abstracts write many ways: key -> canonical key.
EFFICIENCY = {
    **dict.fromkeys(("memory footprint", "memory requirement", "memory usage", "memory cost", "memory overhead",
                     "memory", "gpu memory", "gpu memory usage", "gpu memory consumption", "memory resource",
                     "memory demand"), "memory consumption"),
    **dict.fromkeys(("computation cost", "compute cost", "computational overhead", "computation overhead",
                     "computational expense", "computation burden", "computational burden", "computation resource",
                     "computational resource", "compute resource", "compute requirement",
                     "computational requirement", "compute"), "computational cost"),
    "computation complexity": "computational complexity",
    "computation efficiency": "computational efficiency", "compute efficiency": "computational efficiency",
    **dict.fromkeys(("runtime", "run time", "computational time", "computation time", "compute time",
                     "computing time", "wall clock time", "wallclock time", "execution time"), "running time"),
    "inference latency": "latency",
    **dict.fromkeys(("floating point operation", "flop count", "number of flop"), "flop"),
    "inference throughput": "throughput",
}
_VERSION = re.compile(r"\d+(?:\.\d+)*[a-z]?|\+")
_ADJECTIVE = re.compile(r"(?:ly|ed|ive|ical|ial|ic|ous|able|ible|ary|ful|less)\Z")


def version_marks(key: str) -> tuple[str, ...]:
    """The numbers and version marks of a key: names that differ in them never merge.

    >>> version_marks("cifar10"), version_marks("gpt4v"), version_marks("lora+"), version_marks("llama 2")
    (('10',), ('4v',), ('+',), ('2',))
    """
    return tuple(_VERSION.findall(variant_key(key)))


def word_twins(a: str, b: str) -> bool:
    """Two words that are one but for an ending of :data:`SUFFIX_PAIRS` (or equal).

    >>> [word_twins(a, b) for a, b in [("differentially", "differential"), ("private", "privacy"), ("robot", "robotic"),
    ...  ("adaption", "adaptation"), ("train", "training"), ("tuned", "tuning"), ("distributed", "distributional"),
    ...  ("graph", "graphical"), ("sign", "signal"), ("sample", "sampling")]]
    [True, True, True, True, True, True, False, False, False, False]
    """
    if a == b:
        return True
    if a in _OTHER_SENSE or b in _OTHER_SENSE:
        return False
    for x, y in ((a, b), (b, a)):
        for s1, s2, stem in SUFFIX_PAIRS:
            if x.endswith(s1) and y.endswith(s2):
                left, right = x[: len(x) - len(s1)], y[: len(y) - len(s2)]
                if left == right and len(left) >= stem:
                    return True
    return False


def twin_folds(
    papers: Mapping[str, int],
    types: Mapping[str, str],
    known_types: Mapping[str, str],
    acronyms: Mapping[str, str],
    named: frozenset[str] = frozenset(),
    hyphenated: frozenset[str] = frozenset(),
) -> tuple[dict[str, str], dict[str, str], dict[str, str], list[dict]]:
    """Fold the twins among ``papers`` (representative key -> papers).

    ``types``: each key's type (known, else voted); ``known_types``: the types of the known
    names; ``acronyms``: short key -> long key, the expansions safe corpus-wide; ``named``: keys
    mostly written as a proper name; ``hyphenated``: keys mostly written with a hyphen.
    Returns key -> final key (only keys that change), key -> rule, key -> evidence, and the
    near twins kept apart with the reason.

    >>> papers = {"differential privacy": 9, "differentially private": 4, "self supervised": 5,
    ...           "self supervised learning": 8, "goal conditioned rl": 2, "goal conditioned reinforcement learning": 3,
    ...           "gaussian process": 9, "gaussian process model": 2, "memory footprint": 3, "cifar10": 5, "cifar100": 4,
    ...           "time series": 4, "time series model": 3}
    >>> types = dict.fromkeys(papers, "Method") | {"differential privacy": "Task", "time series": "Task"}
    >>> final, rule, evidence, apart = twin_folds(papers, types, {}, {"rl": "reinforcement learning"},
    ...                                            hyphenated=frozenset({"self supervised"}))
    >>> sorted(final.items())  # doctest: +NORMALIZE_WHITESPACE
    [('differentially private', 'differential privacy'), ('gaussian process model', 'gaussian process'),
     ('goal conditioned rl', 'goal conditioned reinforcement learning'), ('memory footprint', 'memory consumption'),
     ('self supervised', 'self supervised learning')]
    >>> rule["differentially private"], evidence["goal conditioned rl"]
    ('word forms', "'rl' is 'reinforcement learning'")
    """
    parent: dict[str, str] = {}
    rule: dict[str, str] = {}
    evidence: dict[str, str] = {}
    kept_apart: list[dict] = []

    def find(key: str) -> str:
        while key in parent:
            key = parent[key]
        return key

    def join(source: str, target: str, why: str, note: str) -> None:
        source, target = find(source), find(target)
        if source == target:
            return
        problem = _unsafe(source, target, types, known_types)
        if problem:
            kept_apart.append({"keys": sorted((source, target)), "reason": problem})
            return
        parent[source], rule[source], evidence[source] = target, why, note

    def better(a: str, b: str) -> tuple[str, str]:
        """(source, target): into the key with more papers, then the known one, then the shorter."""
        rank = sorted((a, b), key=lambda k: (-papers.get(k, 0), k not in known_types, len(k), k))
        return rank[1], rank[0]

    # 1. word forms
    groups: dict[tuple, list[str]] = defaultdict(list)
    for key in papers:
        words = key.split(" ")
        groups[tuple(w[:3] for w in words)].append(key)
    for keys in groups.values():
        keys.sort()
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                pairs = list(zip(a.split(" "), b.split(" ")))
                if all(word_twins(x, y) for x, y in pairs):
                    source, target = better(a, b)
                    changed = [f"{x} | {y}" for x, y in pairs if x != y]
                    join(source, target, "word forms", "; ".join(changed))
    # 2-3. the spelling table, and acronyms inside names (matched but for spaces: "auto regressive")
    by_variant = {variant_key(key): key for key in sorted(papers, key=lambda k: (-papers[k], k), reverse=True)}
    for key in sorted(papers):
        words = f" {key} "
        for written, standard in SPELLINGS.items():
            words = words.replace(f" {written} ", f" {standard} ")
        spelled = by_variant.get(variant_key(words.strip()), words.strip())
        if spelled != key and spelled in papers:
            join(key, spelled, "spelling table", f"'{key}' is written '{spelled}'")
            continue
        parts = key.split(" ")
        if len(parts) > 1:
            expanded = " ".join(acronyms.get(w, w) for w in parts)
            expanded = by_variant.get(variant_key(expanded), expanded)
            if expanded != key and expanded in papers:
                short = next(w for w in parts if w in acronyms)
                join(key, expanded, "acronym inside a name", f"'{short}' is '{acronyms[short]}'")
    # 4. head words
    modified: dict[str, list[str]] = defaultdict(list)
    for key in papers:
        parts = key.split(" ")
        if len(parts) > 1:
            modified[" ".join(parts[:-1])].append(key)
    for key in sorted(papers):
        parts = key.split(" ")
        head = " ".join(parts[:-1])
        head = head if head in papers else acronyms.get(head, head)  # "ReLU activations" -> rectified linear unit
        if len(parts) < 2 or parts[-1] not in HEAD_WORDS or head not in papers:
            continue
        if not (len(parts) > 2 or head in named or head in known_types or head != " ".join(parts[:-1])):
            continue
        if types.get(key) != types.get(head) or (_modifier(head, hyphenated) and len(modified[head]) > 1):
            continue  # a modifier of several ("multi-task") joins the one it most often modifies: rule 5
        # a modifier of one goes into it ("Fokker-Planck" into "Fokker-Planck equation")
        source, target = (head, key) if _modifier(head, hyphenated) else better(key, head)
        join(source, target, "head word", f"'{key}' is '{head}' with the head word '{parts[-1]}'")
    # 5. a modifier alone
    for key in sorted(papers):
        if key in named or key in known_types or key not in modified or find(key) != key or not _modifier(key, hyphenated):
            continue
        ranked = sorted(modified[key], key=lambda k: (-papers[k], k))
        best = ranked[0]
        # ... and not when the modifier alone is the much more common entity ("decision-making" is
        # no "decision-making process", "post-training" no "post-training quantization")
        if (papers[best] >= 2 and 2 * papers[best] >= papers[key]
                and (len(ranked) == 1 or papers[best] >= 2 * papers[ranked[1]])):
            join(key, best, "modifier alone", f"'{key}' modifies '{best}' in {papers[best]} papers"
                 + (f", '{ranked[1]}' in {papers[ranked[1]]}" if len(ranked) > 1 else ""))
    # 6. efficiency metrics
    for key in sorted(papers):
        target = EFFICIENCY.get(key)
        if target and target != key:
            join(key, target, "efficiency metric table", f"'{key}' is '{target}' (curated table)")
    final = {key: find(key) for key in parent}
    return final, rule, evidence, kept_apart


def _modifier(key: str, hyphenated: frozenset[str]) -> bool:
    """A compound modifier ("self-supervised"), or two or more adjectives ("distributionally robust")."""
    words = key.split(" ")
    return key in hyphenated or (len(words) > 1 and all(_ADJECTIVE.search(w) for w in words))


def _unsafe(source: str, target: str, types: Mapping[str, str], known_types: Mapping[str, str]) -> str:
    """Why two keys must stay apart ("" when they may be one)."""
    if version_marks(source) != version_marks(target):
        return "different number or version"
    a, b = types.get(source), types.get(target)
    if not types_agree(a, b):
        return f"types disagree ({a}, {b})"
    for key, other in ((source, b), (target, a)):
        if known_types.get(key) in ("Dataset", "Benchmark", "Method") and other in ("Task", "Metric"):
            return f"a known {known_types[key]} is no {other}"
    return ""
