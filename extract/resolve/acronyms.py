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
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping

from paperkg.extract.nlp.abbreviations import is_short_form
from paperkg.extract.nlp.normalize import normalize_key, variant_key

FUNCTION_WORDS = frozenset("of for and the with in on to a an from by via".split())
#: Words an acronym may pass over, or take one of its letters from ("Plug-and-Play", PnP).
SMALL_WORDS = FUNCTION_WORDS | frozenset("or at as into over under through is are being based".split())
#: Words a long form may carry without a letter of the acronym ("Contrastive Language-Image
#: Pre-training model", CLIP): a generic head says what kind of thing it is, not which.
UNLETTERED = frozenset("model models method methods framework frameworks algorithm algorithms approach "
                       "network networks module modules problem problems technique techniques dataset datasets benchmark".split())
#: Word-initial parts of closed compounds whose second part an acronym letters on its own
#: ("autoencoder", VAE; "hyperparameter", HPO; "backpropagation", BPTT).
COMPOUND_PREFIXES = ("auto", "hyper", "micro", "multi", "back", "feed", "semi", "eigen", "fine", "super", "radio", "inter", "intra", "over", "under", "counter", "cross", "self", "pre", "post",
                     "non", "meta", "poly", "mono", "sub")
#: A digit of an acronym may stand for a small word ("T2I": text-to-image).
_DIGIT_WORDS = {"2": ("to", "two"), "4": ("for", "four"), "3": ("three",), "1": ("one",)}
_FOLD = {"ł": "l", "ø": "o", "đ": "d", "ß": "s"}
_WORD_SPLIT = re.compile(r"[\W_]+")


def _fold(text: str) -> str:
    """Lower case without accents, one character per character ("Łojasiewicz" -> "lojasiewicz").

    >>> _fold("Łojasiewicz"), _fold("Café"), _fold("LoRA")
    ('lojasiewicz', 'cafe', 'lora')
    """
    if text.isascii():  # nearly every word: an ASCII character folds to itself
        return text.lower()
    return "".join(_FOLD.get(c) or (unicodedata.normalize("NFKD", c)[:1] or c) for c in text.lower())


@lru_cache(maxsize=1 << 16)  # the words of long forms recur ("learning", "network"), each a loop over its characters
def _letter_starts(word: str) -> frozenset[int]:
    """Where a word's parts start: at 0, at inner capitals ("TransformeR", "GFlowNets",
    "CLIPScore"), at digits after letters, and after a compound prefix ("autoencoder")."""
    starts = {0}
    for i in range(1, len(word)):
        c, before = word[i], word[i - 1]
        if (c.isupper() and (before.islower() or (i + 1 < len(word) and word[i + 1].islower() and before.isupper()))
                or (c.isdigit() and not before.isdigit())):
            starts.add(i)
    lower = _fold(word)
    starts.update(len(p) for p in COMPOUND_PREFIXES if lower.startswith(p) and len(lower) >= len(p) + 3)
    return frozenset(starts)


@lru_cache(maxsize=8192)  # the same definition recurs through an abstract's mentions
def expands(short: str, long: str) -> bool:
    """True when ``long`` spells out the acronym ``short``: the letters of ``short`` align, in
    order, to starts of the words of ``long`` (or of their parts: inner capitals, compounds),
    each taking a run of letters from the start of its part ("LoRA": Low-Rank Adaptation); every
    word carries a letter except small words, the later parts of a hyphenated word ("Token-level
    Direct Preference Optimization", TDPO) and generic heads ("model"); two parts at least carry
    letters. A digit is the same digit of the long form, or a small word ("T2I").

    >>> expands("PPO", "Proximal Policy Optimization"), expands("MDPs", "Markov decision processes")
    (True, True)
    >>> expands("VAE", "variational autoencoder"), expands("PnP", "Plug-and-Play"), expands("T2I", "text-to-image")
    (True, True, True)
    >>> expands("XAI", "explainable artificial intelligence")
    True
    >>> expands("PPO", "policy optimization"), expands("ResNet", "Residual Network"), expands("XY", "x")
    (False, True, False)
    >>> [expands(s, l) for s, l in [("LLA", "Laplace Approximation"), ("RRL", "reward learning"),
    ...                             ("SAT", "Satisfiability Prediction"), ("RRSF", "reliance on spurious features")]]
    [False, False, False, False]
    >>> expands("BERT", "BERT-base"), expands("GPT-2", "GPT-1"), expands("A3C", "actor critic"), expands("MuJoCo", "Multi-Agent MuJoCo")
    (False, False, False, False)
    >>> expands("OFU-ReLU", "OFU-ReLU+"), expands("LoRA+", "Low-Rank Adaptation")
    (False, False)
    """
    if not is_short_form(short) or not long.strip():
        return False
    core = "".join(c for c in _fold(short) if c.isalnum())
    parts: list[tuple[str, frozenset[int], bool]] = []  # (lower word, letter starts, must carry a letter)
    for chunk in long.split():
        pieces = [p for p in _WORD_SPLIT.split(chunk) if p]
        for n, piece in enumerate(pieces):
            lower = _fold(piece)
            optional = n > 0 or lower in SMALL_WORDS or lower in UNLETTERED or lower.isdigit()
            parts.append((lower, _letter_starts(piece), not optional))
    if len(parts) < 2 and not any(len(s) > 1 for _, s, _ in parts):
        return False  # one plain word is no spelled-out form ("XY", "x")
    if f" {normalize_key(short)} " in f" {normalize_key(long)} ":
        return False  # a longer name holding the acronym ("CIFAR-10-LT", "Multi-Agent MuJoCo")
    if ("+" in short) != ("+" in long):
        return False  # "LoRA+" is no "LoRA"
    digits = re.findall(r"\d+", long)
    if digits and re.findall(r"\d+", short) != digits:
        return False  # "GPT-2" spells no "GPT-1", "CIFAR-100" no "CIFAR-10"
    # Which letters may come from inside a small word: the lower-case ones and digits ("PnP", "T2I").
    lendable = tuple(not c.isupper() for c in short if c.isalnum())
    for letters in ([core[:-1], core] if len(core) > 2 and core.endswith("s") else [core]):
        if _aligns(letters, lendable, tuple(parts)):
            return True
    return False


def _aligns(letters: str, lendable: tuple[bool, ...], parts: tuple[tuple[str, frozenset[int], bool], ...]) -> bool:
    @lru_cache(maxsize=None)
    def go(i: int, w: int, pos: int, used: int) -> bool:
        # letters[i:] remain; part w is the current one (-1: none yet), its next letter at pos
        # (-1: the run is broken); used: how many parts carry letters (two at least: "BERT" is
        # no spelling out of "BERT-base").
        if i == len(letters):
            return used >= 2 and not any(p[2] for p in parts[w + 1 :])
        c = letters[i]
        if w >= 0:
            word, starts, _ = parts[w]
            if 0 <= pos < len(word) and word[pos] == c and go(i + 1, w, pos + 1, used):
                return True
            if any(s > pos and word[s] == c and go(i + 1, w, s + 1, used) for s in starts if pos >= 0):
                return True
        k = w + 1
        while k < len(parts):
            word, starts, required = parts[k]
            if any(word[s] == c and go(i + 1, k, s + 1, used + 1) for s in sorted(starts)):
                return True  # at its start, or at an inner capital ("TRAjectory importanCE", TRACE)
            if c == "x" and word.startswith("ex") and go(i + 1, k, 2, used + 1):
                return True  # "eXplainable AI", XAI
            if (lendable[i] and word in SMALL_WORDS and (c in word[1:] or word in _DIGIT_WORDS.get(c, ()))
                    and go(i + 1, k, -1, used + 1)):
                return True  # a small word lends a letter ("and" in PnP, "to" in T2I)
            if required:
                break
            k += 1
        return False

    return go(0, -1, -1, 0)


def is_fragment(long_key: str, of: str) -> bool:
    """A long form cut short at its start: a proper word suffix of another long form.

    >>> is_fragment("policy optimization", "proximal policy optimization"), is_fragment("x", "x")
    (True, False)
    """
    return long_key != of and of.endswith(" " + long_key)


#: Words before a long form that a repaired definition may take in ("Linearized" in
#: "Linearized Laplace Approximation (LLA)", which the matcher cut to "Laplace Approximation").
MAX_EXTRA_WORDS = 4
_CLAUSE_TAIL = re.compile(r"[^.;:,()\[\]]*\Z")
_WORD = re.compile(r"\S+")


def spelled_long_form(abstract: str, long_start: int, long_end: int, short: str) -> str | None:
    """The long form a definition "Long Form (LF)" gives ``short``, as written: the matched
    text when it spells the acronym out (:func:`expands`), else the shortest stretch of up to
    :data:`MAX_EXTRA_WORDS` more words of the same clause before it that does, else None (the
    definition is no evidence: "Laplace Approximation (LLA)" alone, "reward learning (RRL)").

    >>> text = "the Linearized Laplace Approximation (LLA) and reward learning (RRL)"
    >>> spelled_long_form(text, 15, 36, "LLA"), spelled_long_form(text, 47, 62, "RRL")
    ('Linearized Laplace Approximation', None)
    """
    from paperkg.extract.nlp.markup import clean_name

    long = clean_name(abstract[long_start:long_end])
    if expands(short, long):
        return long
    before = _CLAUSE_TAIL.search(abstract[max(0, long_start - 120) : long_start]).group()
    words = list(_WORD.finditer(before))
    for word in reversed(words[-MAX_EXTRA_WORDS:]):
        candidate = clean_name(abstract[long_start - len(before) + word.start() : long_end])
        if expands(short, candidate):
            return candidate
    return None


def same_written_form(surface: str, forms: Iterable[str]) -> bool:
    """``surface`` is one of ``forms`` as written, case included, but for a plural "s": "MDPs"
    is "MDP", "SPEED" is not "speed", "FPS" is not "FP".

    >>> same_written_form("MDPs", {"MDP"}), same_written_form("speed", {"SPEED"}), same_written_form("FPS", {"FP"})
    (True, False, False)
    """
    bare = surface[:-1] if surface.endswith("s") and len(surface) > 2 else surface
    return any(bare == (form[:-1] if form.endswith("s") and len(form) > 2 else form) for form in forms)


@dataclass(frozen=True)
class AcronymTable:
    """Corpus-wide decisions: ``expansion`` (short key -> long key) with its ``rule``, and the
    ``ambiguous`` acronyms with their competing long forms (short key -> long keys).

    ``written`` holds the short forms as the definitions write them (a bare mention resolves
    only when written the same way); ``defined_in`` the papers (indices) that define an
    expansion made from the corpus; ``kept_apart`` the acronyms the corpus defines, in two or
    more abstracts, with a long form of another type."""

    expansion: dict[str, str]
    rule: dict[str, str]
    ambiguous: dict[str, tuple[str, ...]]
    definitions: dict[str, dict[str, int]]
    written: dict[str, frozenset[str]] = field(default_factory=dict)
    defined_in: dict[str, tuple[int, ...]] = field(default_factory=dict)
    kept_apart: tuple[dict, ...] = ()

    def local(self, short_key: str, long_key: str) -> str:
        """What a definition inside one abstract means there: its own long form, unless that is a
        cut-off tail of the corpus-wide expansion ("policy optimization (PPO)")."""
        wide = self.expansion.get(short_key)
        return wide if wide and is_fragment(long_key, wide) else long_key

    def resolves(self, short_key: str, surface: str) -> bool:
        """Whether a bare mention written ``surface`` takes the corpus-wide expansion: a curated or
        known-list one when written with a capital, a corpus one when written as defined."""
        if short_key not in self.expansion or not is_short_form(surface):
            return False
        return short_key not in self.written or same_written_form(surface, self.written[short_key]) or (
            not self.rule[short_key].startswith("corpus"))


def acronym_table(
    definitions: Iterable[tuple[str, str, int]],
    curated: Mapping[str, str] | None = None,
    known: Mapping[str, str] | None = None,
    types: Mapping[str, str] | None = None,
) -> AcronymTable:
    """Rank the evidence for each acronym. ``definitions`` are ``(short, long, paper)`` as written;
    ``curated`` and ``known`` map short keys to long keys; ``types`` the type most mentions of a
    key have. A definition made in one abstract stays there: it crosses to other papers only
    when two or more abstracts define the acronym so (and no other way, or far fewer: see
    :data:`DOMINANCE`), and the types agree (:func:`types_agree`).

    >>> t = acronym_table([("SAC", "Soft Actor-Critic", 0), ("SAC", "soft actor critic", 1), ("DP", "dynamic programming", 0),
    ...                    ("DP", "differential privacy", 2), ("PPO", "policy optimization", 3), ("OPT", "Open-world Prompt Tuning", 4),
    ...                    ("CV", "computer vision", 5), ("MT", "Meta-Test", 6), ("MT", "meta test", 7)]
    ...                   + [("MDP", "Markov decision process", i) for i in range(10, 13)] + [("MDP", "Markov decision problem", 13)],
    ...                   curated={"ppo": "proximal policy optimization"}, known={"opt": "opt"},
    ...                   types={"mt": "Dataset", "meta test": "Task"})
    >>> t.expansion["sac"], t.rule["sac"], t.ambiguous["dp"], t.expansion["ppo"], t.expansion["opt"], t.rule["opt"]
    ('soft actor critic', 'corpus', ('differential privacy', 'dynamic programming'), 'proximal policy optimization', 'opt', 'known list')
    >>> t.local("ppo", "policy optimization"), t.local("opt", "open world prompt tuning"), "cv" in t.expansion, "mt" in t.expansion
    ('proximal policy optimization', 'open world prompt tuning', False, False)
    >>> t.expansion["mdp"], t.rule["mdp"]
    ('markov decision process', 'corpus, most abstracts')
    >>> t.resolves("sac", "SAC"), t.resolves("sac", "Sac"), t.kept_apart[0]["reason"]
    (True, False, 'acronym defined so in 2 abstracts, but of another type (Dataset, Task)')
    """
    curated, known, types = dict(curated or {}), dict(known or {}), dict(types or {})
    papers: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    written: dict[str, set[str]] = defaultdict(set)
    for short, long, paper in definitions:
        short_key, long_key = normalize_key(short), normalize_key(long)
        if short_key and long_key and (expands(short, long) or short_key in curated or short_key in known):
            papers[short_key][long_key].add(paper)
            written[short_key].add(short)
    expansion: dict[str, str] = {}
    rule: dict[str, str] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    counts: dict[str, dict[str, int]] = {}
    defined_in: dict[str, tuple[int, ...]] = {}
    kept_apart: list[dict] = []
    for short_key in sorted(set(papers) | set(curated) | set(known)):
        expected = curated.get(short_key) or known.get(short_key)
        groups = _merge_long_forms(papers.get(short_key, {}), expected)
        counts[short_key] = {long: len(found) for long, found in sorted(groups.items())}
        if short_key in curated:
            expansion[short_key], rule[short_key] = curated[short_key], "curated"
        elif len(groups) > 1:
            ranked = sorted(groups, key=lambda k: (-len(groups[k]), k))
            top, rest = len(groups[ranked[0]]), sum(len(groups[k]) for k in ranked[1:])
            if expected in groups:
                expansion[short_key], rule[short_key] = expected, "known list and corpus"
            elif top >= MIN_DOMINANT and top >= DOMINANCE * rest and types_agree(types.get(short_key), types.get(ranked[0])):
                # "MDP": Markov decision process in 12 abstracts, Markov decision problem in 1
                expansion[short_key], rule[short_key] = ranked[0], "corpus, most abstracts"
                defined_in[short_key] = tuple(sorted(groups[ranked[0]]))
            else:
                ambiguous[short_key] = tuple(sorted(groups))
        elif groups:
            (long_key, found), = groups.items()
            if len(found) >= 2 and types_agree(types.get(short_key), types.get(long_key)):
                expansion[short_key], rule[short_key] = long_key, "corpus"
                defined_in[short_key] = tuple(sorted(found))
            elif len(found) >= 2:
                kept_apart.append({"keys": [short_key, long_key], "reason": (
                    f"acronym defined so in {len(found)} abstracts, but of another type "
                    f"({', '.join(sorted((types[short_key], types[long_key])))})")})
            elif expected:
                expansion[short_key], rule[short_key] = expected, "known list"
        elif expected:
            expansion[short_key], rule[short_key] = expected, "known list"
    return AcronymTable(expansion, rule, ambiguous, counts, {k: frozenset(v) for k, v in written.items()},
                        defined_in, tuple(kept_apart))


#: An acronym the corpus defines two ways still has a corpus meaning when one long form has at
#: least MIN_DOMINANT abstracts and DOMINANCE times those of all the others.
MIN_DOMINANT = 3
DOMINANCE = 3

#: Types one concept may carry in different abstracts: a technique is also written as the task
#: it solves ("reinforcement learning"), a suite as a dataset; a metric is only a metric.
_AGREEING = ({"Method", "Task"}, {"Dataset", "Benchmark"})


def types_agree(a: str | None, b: str | None) -> bool:
    """Whether two entities of types ``a`` and ``b`` may be one (None: not known, agrees).

    >>> types_agree("Method", "Task"), types_agree("Dataset", "Benchmark"), types_agree("Dataset", "Task"), types_agree("Metric", None)
    (True, True, False, True)
    """
    return a is None or b is None or a == b or any({a, b} <= group for group in _AGREEING)


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
