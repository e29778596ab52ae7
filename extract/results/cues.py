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


def _in(span: Span, sentence: tuple[int, int]) -> bool:
    return sentence[0] <= span.start and span.end <= sentence[1]


def _distance(span: Span, number: Number) -> int:
    """Characters between a mention and a number; a mention after the number counts a little
    less ("76.2% top-1 accuracy on ImageNet" binds forward)."""
    if span.start >= number.end:
        return (span.start - number.end) * 2 // 3
    return number.start - span.end if span.end <= number.start else 0


def bind_slots(number: Number, order: int, sentence: tuple[int, int], spans: Sequence[Span],
               sentence_numbers: Sequence[Number], main: Mapping[str, str | None]) -> dict[str, str | None]:
    """The entity key of each slot (metric, dataset, method, task) for the ``order``-th result
    of its sentence, or None. ``spans`` are the paper's mentions (those of the sentence are
    enough), ``main`` the paper's :func:`main_entities`, found once per paper.

    * metric, dataset, task: the nearest mention of that type in the sentence; with as many
      mentions as results ("by 7% and 11% on A and B, respectively") the one of the same rank;
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
    >>> [bind_slots(n, i, (0, len(t)), spans, ns, main_entities(spans))["dataset"] for i, n in enumerate(ns)]
    ['cifar 100', 'svhn']
    """
    slots: dict[str, str | None] = {}
    for slot, types in SLOT_TYPES.items():
        here = [s for s in spans if s.type in types and _in(s, sentence)]
        if slot == "method":
            slots[slot] = _method(number, here, main.get("method"))
            continue
        distinct = list(dict.fromkeys(s.key for s in sorted(here, key=lambda s: s.start)))
        if len(distinct) > 1 and len(distinct) == len(sentence_numbers):
            slots[slot] = distinct[order]
        elif here:
            slots[slot] = min(here, key=lambda s: (_distance(s, number), s.start)).key
        else:
            slots[slot] = main.get(slot)
    return slots


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
