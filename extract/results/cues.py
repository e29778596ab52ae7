"""Cues over one sentence: sentence spans, the words around a number, the features the result
scorer reads, and the rules that bind a result's four slots to the paper's entities.

Pure functions over strings and offsets: no spaCy, so they run on any text and are tested on
real sentences.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from paperkg.extract.results.grammar import Number

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9(\[$\\])")
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*|[%$\\]|\d+")
#: Slot types and the entity types that fill them.
SLOT_TYPES: dict[str, tuple[str, ...]] = {
    "metric": ("Metric",), "dataset": ("Dataset", "Benchmark"), "method": ("Method",), "task": ("Task",),
}
#: Words that state a comparison: a value after them is a difference or a factor.
GAIN_WORDS = frozenset(
    ["by", "improve", "improves", "improved", "improvement", "improvements", "improving", "outperform", "outperforms", "outperforming", "surpass", "surpasses", "surpassing", "faster", "slower", "fewer", "less", "lower", "higher", "more", "reduce", "reduces", "reduced", "reduction", "gain", "gains", "boost", "boosts", "speedup", "speed-up", "speedups", "margin", "over", "than", "compared", "relative", "increase", "increases", "decrease", "decreases", "fold", "times", "up"])


#: Verbs that state a value reached ("achieves 76.2%", "reaching an FID of 2.1").
SCORE_VERBS = frozenset(
    ["achieves", "achieve", "achieving", "achieved", "reaches", "reach", "reaching", "reached", "obtains", "obtain",
     "obtaining", "obtained", "attains", "attain", "attaining", "attained", "scores", "scoring", "yields", "yielding"])
#: Words after a value that make it a difference ("3% higher", "40% fewer", "2.1 points better").
GAIN_AFTER = frozenset(
    ["higher", "lower", "faster", "slower", "fewer", "less", "more", "better", "worse", "improvement", "improvements",
     "gain", "gains", "speedup", "speed-up", "reduction", "reductions", "increase", "decrease", "relative", "over",
     "than", "boost", "smaller", "larger", "cheaper", "savings", "absolute", "points", "margin", "compared"])


@dataclass(frozen=True, slots=True)
class Span:
    """An entity mention of the paper as the cues see it: offsets, entity type and key, role."""

    start: int
    end: int
    type: str
    key: str
    role: str


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence: a split after ``.!?`` and space before a capital, a
    digit or markup (decimals and "e.g. the" stay whole).

    >>> t = "We reach 76.2% on ImageNet. It is 3x faster, e.g. than SAC."
    >>> [t[s:e] for s, e in sentence_spans(t)]
    ['We reach 76.2% on ImageNet.', 'It is 3x faster, e.g. than SAC.']
    """
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def words(text: str) -> list[str]:
    """Lower-cased words, digits as ``0`` (the scorer's vocabulary)."""
    return ["0" if w.isdigit() else w.lower() for w in _WORD.findall(text)]


def _magnitude(value: float) -> str:
    value = abs(value)
    return "<1" if value < 1 else "<10" if value < 10 else "<100" if value < 100 else "<1900" if value < 1900 \
        else "year" if value < 2100 and value == int(value) else "big"


def features(text: str, number: Number, sentence: tuple[int, int], spans: Sequence[Span],
             numbers_in_sentence: int) -> list[str]:
    """The scorer's features of one number: its form, the words before and after it (3 by
    position, 8 as a bag), the entity types next to it, and sentence cues.

    >>> from paperkg.extract.results.grammar import find_numbers
    >>> t = "Our method achieves 76.2% top-1 accuracy on ImageNet."
    >>> n = find_numbers(t)[0]
    >>> f = features(t, n, (0, len(t)), [Span(26, 40, "Metric", "top 1 accuracy", "used")], 1)
    >>> [x for x in f if x.startswith(("unit", "p1", "n1", "after"))]
    ['unit:%', 'p1:achieves', 'n1:top-', 'after:Metric']
    """
    s_start, s_end = sentence
    before = words(text[max(s_start, number.start - 80):number.start])
    after = words(text[number.end:min(s_end, number.end + 80)])
    out = [f"unit:{number.unit}", f"mag:{_magnitude(number.number)}", f"mag:{number.unit}:{_magnitude(number.number)}"]
    written = number.text
    out += [f"dec:{'.' in written}", f"sign:{written[:1] in '+-'}", f"range:{number.upper is not None}",
            f"comma:{',' in written}", f"nums:{min(numbers_in_sentence, 4)}"]
    for i, word in enumerate(reversed(before[-3:]), 1):
        out.append(f"p{i}:{word}")
    for i, word in enumerate(after[:3], 1):
        out.append(f"n{i}:{word}")
    out += [f"pb:{w}" for w in set(before[-8:])] + [f"nb:{w}" for w in set(after[:8])]
    if not before:
        out.append("p1:<s>")
    out += [f"gainword:{bool(GAIN_WORDS & set(before[-4:]))}", f"gainafter:{bool(GAIN_WORDS & set(after[:3]))}"]
    for span in spans:
        if s_start <= span.start and span.end <= s_end:
            if 0 <= span.start - number.end <= 40:
                out.append(f"after:{span.type}")
            if 0 <= number.start - span.end <= 40:
                out.append(f"before:{span.type}")
            out.append(f"sent:{span.type}")
        if span.start < number.end and number.start < span.end:
            out.append("inside_entity")
    return out


def states_score(text: str, number: Number, sentence: tuple[int, int], spans: Sequence[Span]) -> bool:
    """Whether the sentence states ``number`` as a value reached: a score verb among the eight
    words before it ("achieves a pass@1 of 75%") or a metric right before ("top-1 accuracy of
    82.2%") or after it ("82.2% top-1 accuracy"), and no word of comparison between the verb
    and the number or right after it ("achieves a gain of 12%", "3% higher accuracy"). A factor
    ("3x") or a signed value ("+2.1") is never a score.

    >>> from paperkg.extract.results.grammar import find_numbers
    >>> t = "GPT-4 achieves a pass@1 of 75% while ours is 3% higher."
    >>> [states_score(t, n, (0, len(t)), []) for n in find_numbers(t)[1:]]
    [True, False]
    """
    if number.unit == "x" or number.text.lstrip("$\\(").startswith(("+", "-", "\u2212")):
        return False
    before = words(text[max(sentence[0], number.start - 80):number.start])[-8:]
    after = words(text[number.end:min(sentence[1], number.end + 40)])[:3]
    if GAIN_AFTER & set(after):
        return False
    verb = max((i for i, w in enumerate(before) if w in SCORE_VERBS), default=None)
    if verb is not None:
        return not (GAIN_WORDS | GAIN_AFTER | {"only"}) & set(before[verb + 1:])
    if (GAIN_WORDS | GAIN_AFTER | {"only"}) & set(before[-4:]):
        return False
    for span in spans:
        if span.type == "Metric" and sentence[0] <= span.start and span.end <= sentence[1]:
            gap_before = text[span.end:number.start]
            if span.end <= number.start and len(gap_before) <= 8 and words(gap_before) in (["of"], ["is"], ["at"]):
                return True
            if span.start >= number.end and span.start - number.end <= 2:
                return True
    return False


def _in(span: Span, sentence: tuple[int, int]) -> bool:
    return sentence[0] <= span.start and span.end <= sentence[1]


def _distance(span: Span, number: Number) -> int:
    """Characters between a mention and a number; a mention after the number counts a little
    less ("76.2% top-1 accuracy on ImageNet" binds forward)."""
    if span.start >= number.end:
        return (span.start - number.end) * 2 // 3
    return number.start - span.end if span.end <= number.start else 0


#: Where a clause of a sentence ends, for the slots: "2-30x faster, and uses 2-8x less memory".
_CLAUSE_END = re.compile(r"[,;:]| while | whereas ")


def clauses(text: str, sentence: tuple[int, int]) -> list[tuple[int, int]]:
    """The clauses of ``sentence``, split at commas, semicolons, colons, "while", "whereas".

    >>> t = "It is 3x faster, and uses 2x less memory."
    >>> [t[slice(*c)] for c in clauses(t, (0, len(t)))]
    ['It is 3x faster', ' and uses 2x less memory.']
    """
    out, start = [], sentence[0]
    for match in _CLAUSE_END.finditer(text, sentence[0], sentence[1]):
        out.append((start, match.start()))
        start = match.end()
    out.append((start, sentence[1]))
    return out


@dataclass(frozen=True, slots=True)
class Place:
    """Where a result sits for its slots: a region of the text (a clause or the sentence), the
    result's rank among the results in it and their count."""

    region: tuple[int, int]
    rank: int
    count: int


def _nearest(number: Number, spans: Sequence[Span], types: tuple[str, ...], place: Place) -> str | None:
    """The key of the mention of ``types`` in the place's region for ``number``: with as many
    distinct entities as results in the region, the one of the same rank, else the nearest."""
    here = [s for s in spans if s.type in types and _in(s, place.region)]
    if not here:
        return None
    distinct = list(dict.fromkeys(s.key for s in sorted(here, key=lambda s: s.start)))
    if len(distinct) > 1 and len(distinct) == place.count:
        return distinct[place.rank]
    return min(here, key=lambda s: (_distance(s, number), s.start)).key


def bind_slots(number: Number, places: Sequence[Place], spans: Sequence[Span],
               main: Mapping[str, str | None]) -> dict[str, str | None]:
    """The entity key of each slot (metric, dataset, method, task) for ``number``, or None.
    ``places`` are its clause then its sentence (the last is the sentence); ``spans`` the
    paper's mentions (those of the sentence are enough); ``main`` the paper's
    :func:`main_entities`, found once per paper.

    * metric, dataset, task: the mention of that type in the number's clause, else in the
      sentence: with as many entities as results ("by 7% and 11% on A and B, respectively")
      the one of the same rank, else the nearest (on train, preferring the clause bound the
      gold dataset of 0.92 of the results instead of 0.90, the metric 0.86 instead of 0.84);
    * a task not named in the sentence is the paper's main task (the guideline binds the task
      the paper addresses); metric and dataset are not (on train, the paper's main one was
      wrong more often than right);
    * method: the nearest proposed method named in the sentence, else the paper's main proposed
      method (the paper's own, as the guideline says), else None.

    >>> from paperkg.extract.results.grammar import find_numbers
    >>> t = "PALM improves AUROC by 2.1 points on CIFAR-100 and 3.4 points on SVHN."
    >>> ns = find_numbers(t)
    >>> spans = [Span(0, 4, "Method", "palm", "proposed"), Span(14, 19, "Metric", "auroc", "used"),
    ...          Span(37, 46, "Dataset", "cifar 100", "used"), Span(65, 69, "Dataset", "svhn", "used")]
    >>> [bind_slots(n, [Place((0, len(t)), i, 2)], spans, main_entities(spans))["dataset"] for i, n in enumerate(ns)]
    ['cifar 100', 'svhn']
    """
    slots: dict[str, str | None] = {}
    sentence = places[-1].region
    for slot, types in SLOT_TYPES.items():
        if slot == "method":
            slots[slot] = _method(number, [s for s in spans if s.type in types and _in(s, sentence)], main.get("method"))
            continue
        slots[slot] = next((key for place in places if (key := _nearest(number, spans, types, place))), None) \
            or main.get(slot)
    return slots


def places_of(text: str, sentence: tuple[int, int], numbers: Sequence[Number]) -> list[list[Place]]:
    """Each of ``numbers`` (the results of ``sentence``, in text order) in its clause and in the
    sentence, in one pass over both."""
    regions = clauses(text, sentence)
    of_number, index = [], 0
    for number in numbers:
        while regions[index][1] <= number.start and index < len(regions) - 1:
            index += 1
        of_number.append(index)
    counts: dict[int, int] = {}
    ranks = []
    for index in of_number:
        ranks.append(counts.get(index, 0))
        counts[index] = ranks[-1] + 1
    return [[Place(regions[index], rank, counts[index]), Place(sentence, order, len(numbers))]
            for order, (index, rank) in enumerate(zip(of_number, ranks))]


def _method(number: Number, here: Sequence[Span], main: str | None) -> str | None:
    proposed = [s for s in here if s.role == "proposed"]
    if proposed:
        return min(proposed, key=lambda s: (_distance(s, number), s.start)).key
    return main


def _most_mentioned(spans: Sequence[Span], type: str, roles: Collection[str]) -> str | None:
    """The key of the most mentioned entity of ``type`` with one of ``roles``, then the first."""
    counts: dict[str, list] = {}
    for s in spans:
        if s.type == type and s.role in roles:
            counts.setdefault(s.key, [0, s.start])[0] -= 1
    return min(counts, key=lambda k: counts[k]) if counts else None


def main_entities(spans: Sequence[Span]) -> dict[str, str | None]:
    """The paper's defaults for slots its sentence leaves empty: ``method``, its main proposed
    method, and ``task``, its main task (proposed or used, not only mentioned)."""
    return {"method": _most_mentioned(spans, "Method", ("proposed",)),
            "task": _most_mentioned(spans, "Task", ("proposed", "used"))}
