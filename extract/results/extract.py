"""Results per paper: the numbers of the abstract that the scorer takes for results, each with
its kind, its four slots bound to the paper's entities and its evidence sentence.

Two learned linear scorers over :func:`~paperkg.extract.results.cues.features` (logistic
regression fitted on the train gold by :mod:`paperkg.extract.learn.results`, shipped in
``data/results_model.json``): one says whether a number is a result (its threshold is set for
precision: a wrong number in a leaderboard is worse than a missing one), the other whether a
result is a gain or a score. Slots are rules (:func:`~paperkg.extract.results.cues.bind_slots`).
An abstract with numbers but no result yields nothing.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

from paperkg.extract.results.cues import Span, bind_slots, features, main_entities, places_of, sentence_spans, states_score
from paperkg.extract.results.grammar import Number, find_numbers

from paperkg.errors import ExtractionError
from paperkg.types import Extraction, PaperEntity, Result

MODEL_FILE = "results_model.json"
MODEL_FORMAT = "paperkg-results-model"


@dataclass(frozen=True)
class LinearScorer:
    """A logistic regression over string features: ``bias + sum(weights[f])``, squashed."""

    weights: Mapping[str, float]
    bias: float
    threshold: float = 0.5

    def probability(self, feats: Iterable[str]) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in feats)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_dict(self) -> dict:
        return {"bias": self.bias, "threshold": self.threshold,
                "weights": {k: round(v, 6) for k, v in sorted(self.weights.items()) if abs(v) >= 1e-6}}

    @classmethod
    def from_dict(cls, raw: Mapping) -> LinearScorer:
        return cls(weights=dict(raw["weights"]), bias=float(raw["bias"]), threshold=float(raw["threshold"]))


@dataclass(frozen=True)
class ResultModel:
    """The two scorers: is this number a result (``result``), and is it a gain (``gain``)."""

    result: LinearScorer
    gain: LinearScorer

    def to_dict(self) -> dict:
        return {"format": MODEL_FORMAT, "result": self.result.to_dict(), "gain": self.gain.to_dict()}


@lru_cache(maxsize=1)
def shipped_model() -> ResultModel:
    """The model in ``paperkg/extract/data/results_model.json``."""
    try:
        raw = json.loads(resources.files("paperkg.extract.data").joinpath(MODEL_FILE).read_text(encoding="utf-8"))
        if raw.get("format") != MODEL_FORMAT:
            raise ValueError(f"no {MODEL_FORMAT!r} marker")
        return ResultModel(LinearScorer.from_dict(raw["result"]), LinearScorer.from_dict(raw["gain"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExtractionError(f"the results model {MODEL_FILE} cannot be read: {exc}") from exc


def entity_spans(entities: Sequence[PaperEntity]) -> list[Span]:
    """Every mention of the paper's entities as a :class:`Span`, in text order."""
    return sorted((Span(m.start, m.end, e.type, e.key, e.role) for e in entities for m in e.mentions),
                  key=lambda s: (s.start, s.end))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A number of the abstract outside every entity mention, with its sentence and features."""

    number: Number
    sentence: tuple[int, int]
    features: tuple[str, ...]


def _outside_mentions(numbers: list[Number], spans: Sequence[Span]) -> list[Number]:
    """The numbers no span overlaps, in one sorted pass: a span starting before a number's end
    overlaps it exactly when the furthest end among such spans passes the number's start."""
    starts = [s.start for s in spans]
    reach, furthest = [], -1
    for span in spans:
        furthest = max(furthest, span.end)
        reach.append(furthest)
    out = []
    for number in numbers:
        before = bisect_left(starts, number.end)
        if not before or reach[before - 1] <= number.start:
            out.append(number)
    return out


def _in_sentence(items: Sequence, starts: Sequence[int], sentence: tuple[int, int]) -> Sequence:
    """The ``items`` (sorted, ``starts`` their start offsets) that start inside ``sentence``."""
    return items[bisect_left(starts, sentence[0]):bisect_left(starts, sentence[1])]


#: What a number that sets a quantity follows ("$\\epsilon=8/255$", "k < 5"): settings and
#: bounds, never results (none of the train gold's results follows one).
_RELATION = re.compile(r"(?:=|<|>|\\leq?|\\geq?|\\approx|\\le|\\ge)[\s$]*$")


def is_setting(abstract: str, start: int) -> bool:
    r"""Whether the number at ``start`` is the right side of an (in)equation.

    >>> t = "accuracy against attacks with $\\epsilon_\\infty=8/255$ and k > 3"
    >>> is_setting(t, t.index("8/255")), is_setting(t, t.index("3")), is_setting("reaches 76%", 8)
    (True, True, False)
    """
    return _RELATION.search(abstract, max(0, start - 12), start) is not None


def candidates(abstract: str, spans: Sequence[Span]) -> list[Candidate]:
    """The numbers of ``abstract`` that may be results, each with its sentence and features
    (digits inside a mention, "Llama 2", are part of a name). Each sentence is given only its
    own mentions and numbers, so the work stays linear in a long abstract."""
    spans = sorted(spans, key=lambda s: (s.start, s.end))
    numbers = [n for n in _outside_mentions(find_numbers(abstract), spans) if not is_setting(abstract, n.start)]
    if not numbers:
        return []
    number_starts, span_starts = [n.start for n in numbers], [s.start for s in spans]
    out = []
    for sentence in sentence_spans(abstract):
        inside = _in_sentence(numbers, number_starts, sentence)
        here = [s for s in _in_sentence(spans, span_starts, sentence) if s.end <= sentence[1]]
        for number in inside:
            out.append(Candidate(number, sentence, tuple(features(abstract, number, sentence, here, len(inside)))))
    return out


def find_results(abstract: str, entities: Sequence[PaperEntity], model: ResultModel | None = None) -> tuple[Result, ...]:
    """The results of one abstract (see the module docstring), in text order."""
    spans = entity_spans(entities)
    found = candidates(abstract, spans)
    if not found:
        return ()
    model = model or shipped_model()
    by_sentence: dict[tuple[int, int], list[Candidate]] = {}
    for candidate in found:
        if model.result.probability(candidate.features) >= model.result.threshold:
            by_sentence.setdefault(candidate.sentence, []).append(candidate)
    main, span_starts = main_entities(spans), [s.start for s in spans]
    results = []
    for sentence, kept in by_sentence.items():
        here = [s for s in _in_sentence(spans, span_starts, sentence) if s.end <= sentence[1]]
        for candidate, places in zip(kept, places_of(abstract, sentence, [c.number for c in kept])):
            n = candidate.number
            slots = bind_slots(n, places, here, main)
            # The learned kind scorer saw few scores (one result in four on train) and calls
            # most percentages gains; a sentence that states the value reached overrides it.
            gain = model.gain.probability(candidate.features) >= model.gain.threshold \
                and not states_score(abstract, n, sentence, here)
            results.append(Result(start=n.start, end=n.end, text=n.text, number=n.number, unit=n.unit,
                                  kind="gain" if gain else "score", evidence=abstract[slice(*sentence)],
                                  upper=n.upper, **slots))
    return tuple(results)


def with_results(extraction: Extraction, model: ResultModel | None = None) -> Extraction:
    """``extraction`` with its results found."""
    return replace(extraction, results=find_results(extraction.paper.abstract, extraction.entities, model))
