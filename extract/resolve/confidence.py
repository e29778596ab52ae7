"""A confidence per paper entity: the estimated probability that a researcher keeps it.

A logistic regression over what the paper itself shows about an entity: which sources found
it (the statistical model, a known list, an acronym definition, a naming cue), whether a known
list or the curated table holds it, how the name is written (coined, lower-case words, a
descriptive "-ing" opening, a bare hyphenated modifier, a generic head noun), how often and
where the abstract names it, and its type and role. It is fitted on out-of-fold predictions of
the whole pipeline on ``paperkg_train.jsonl`` (:mod:`paperkg.extract.learn.confidence`): an NER
trained on one half of train extracts the other half, and each predicted entity is labelled by
whether it matches a gold entity, the rule ``paperkg evaluate`` scores precision by. Fitting on
the shipped model's own train predictions would learn that nearly everything is right.

The weights ship beside the NER (``model/ner/confidence.json``). Only the paper is read, so an
entity's confidence does not change when other papers are added to a build.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.nlp.rules import is_name_like
from paperkg.extract.resolve.roles import PaperContext, known_keys
from paperkg.types import ENTITY_TYPES, Extraction, PaperEntity

#: The confidence model's file name inside the model directory.
CONFIDENCE_FILE = "confidence.json"
#: Paper entities below this confidence are left out of a build by default (``--min-confidence``):
#: an entity more likely wrong than right does not enter the graph. On the out-of-fold train
#: rows this cut drops 35% of the wrong entities and 15% of the right ones (the model card has
#: the curve, and what it does on dev).
DEFAULT_MIN_CONFIDENCE = 0.5

ORIGINS = ("model", "gazetteer", "abbreviation", "proposal", "rule")
# Head nouns that make a name descriptive when nothing else in it is specific.
_GENERIC_HEADS = frozenset(
    "approach approaches framework frameworks method methods model models technique techniques strategy "
    "strategies mechanism mechanisms module modules system systems scheme schemes process procedure data "
    "problem problems setting settings task tasks algorithm algorithms quality performance".split()
)

FEATURES = (
    "bias", *(f"type_{t}" for t in ENTITY_TYPES), *(f"origin_{o}" for o in ORIGINS), "model_only",
    "known", "record", "log_mentions", "coined", "words_1", "words_2", "words_3", "lower_case",
    "has_digit", "ing_opening", "hyphen_modifier", "generic_head", "acronym_defined", "in_title",
    "first_sentence", "role_proposed", "role_used", "log_chars", "list_only_named",
)


def confidence_features(context: PaperContext, entity: PaperEntity, *, known: bool) -> list[float]:
    """The feature vector (in :data:`FEATURES` order) of ``entity`` in its paper.

    >>> from paperkg.types import Mention
    >>> text = "We propose FooNet for image classification."
    >>> m = Mention(11, 17, "FooNet", "Method", "foonet", "proposed", text, origin="model")
    >>> e = PaperEntity("foonet", "FooNet", "Method", "proposed", (m,), text)
    >>> x = dict(zip(FEATURES, confidence_features(PaperContext.of(text, None), e, known=False)))
    >>> x["coined"], x["origin_model"], x["role_proposed"], x["first_sentence"]
    (1.0, 1.0, 1.0, 1.0)
    """
    flags = dict.fromkeys(FEATURES, 0.0)
    flags["bias"] = 1.0
    flags[f"type_{entity.type}"] = 1.0
    origins = {m.origin for m in entity.mentions}
    for origin in origins & set(ORIGINS):
        flags[f"origin_{origin}"] = 1.0
    flags["model_only"] = float(origins == {"model"})
    flags["known"] = float(known)
    flags["record"] = float(bool(entity.pwc_id or entity.codesota_id or entity.record_url))
    flags["log_mentions"] = math.log1p(len(entity.mentions))
    texts = [m.text for m in entity.mentions] + [entity.name]
    flags["coined"] = float(any(is_name_like(w) for t in texts for w in t.split()))
    words = entity.name.split()
    flags[f"words_{min(len(words), 3)}"] = 1.0 if words else 0.0
    flags["lower_case"] = float(entity.name == entity.name.lower())
    flags["has_digit"] = float(any(c.isdigit() for c in entity.name))
    flags["ing_opening"] = float(bool(words) and words[0].islower() and words[0].endswith("ing") and len(words) > 1)
    flags["hyphen_modifier"] = float(len(words) == 1 and "-" in entity.name and entity.name.islower())
    flags["generic_head"] = float(bool(words) and words[-1].lower() in _GENERIC_HEADS and not flags["coined"])
    flags["acronym_defined"] = float("abbreviation" in origins)
    keys = {normalize_key(t) for t in texts} - {""}
    flags["in_title"] = float(bool(context.title_key) and any(f" {k} " in context.title_key for k in keys))
    first = min((m.start for m in entity.mentions), default=0)
    flags["first_sentence"] = float(first < context.sentences[0][1])
    flags["role_proposed"] = float(entity.role == "proposed")
    flags["role_used"] = float(entity.role == "used")
    flags["log_chars"] = math.log1p(len(entity.name))
    # Found by a list lookup alone: a capitalised name there ("Llama 2") is mostly right, a
    # lower-case one mostly a generic word the lists hold; a linear model cannot form this itself.
    flags["list_only_named"] = float("gazetteer" in origins and "model" not in origins and not flags["lower_case"])
    return [flags[f] for f in FEATURES]


@dataclass(frozen=True)
class ConfidenceModel:
    """Logistic weights in :data:`FEATURES` order."""

    weights: tuple[float, ...]
    features: tuple[str, ...] = FEATURES

    def probabilities(self, rows: Sequence[Sequence[float]]) -> numpy.ndarray:
        if not len(rows):
            return numpy.zeros(0)
        scores = numpy.asarray(rows, dtype=float) @ numpy.asarray(self.weights)
        return 1.0 / (1.0 + numpy.exp(-scores))

    def to_json(self) -> str:
        return json.dumps({"features": list(self.features), "weights": list(self.weights)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> ConfidenceModel:
        data = json.loads(text)
        if tuple(data["features"]) != FEATURES:
            raise ValueError("confidence model features differ from this version of paperkg")
        return cls(weights=tuple(float(w) for w in data["weights"]))


@lru_cache(maxsize=4)
def load_confidence_model(path: Path | None = None) -> ConfidenceModel | None:
    """The confidence model of the pipeline's model directory (or ``path``), or None when it is
    absent (a rules-only build): every entity then has confidence None and none is dropped."""
    from paperkg.extract.nlp.pipeline import MODEL_DIR

    path = Path(path) if path else MODEL_DIR / CONFIDENCE_FILE
    return ConfidenceModel.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def entity_rows(extractions: Iterable[Extraction]) -> list[list[float]]:
    """The feature rows of every paper entity of ``extractions``, in order."""
    known = known_keys()
    rows = []
    for extraction in extractions:
        context = PaperContext.of(extraction.paper.abstract, extraction.paper.title)
        rows.extend(confidence_features(context, entity, known=entity.key in known) for entity in extraction.entities)
    return rows


def assign_confidence(extractions: Sequence[Extraction], model: ConfidenceModel | None = None) -> list[Extraction]:
    """Each paper entity with its confidence (3 decimals, so every build writes the same bytes)."""
    model = model or load_confidence_model()
    if model is None:
        return list(extractions)
    scores = iter(model.probabilities(entity_rows(extractions)))
    return [
        replace(x, entities=tuple(replace(e, confidence=round(float(next(scores)), 3)) for e in x.entities))
        for x in extractions
    ]


@lru_cache(maxsize=1)
def curated_keys() -> frozenset[str]:
    """The keys of the curated table: standard concepts chosen by hand ("diffusion model"), kept
    whatever their confidence where an abstract names them, so that every paper naming one is
    found by it."""
    from paperkg.extract.resolve.canonical import known_tables

    return frozenset(known_tables().curated_aliases.values())


def keep_confident(extraction: Extraction, min_confidence: float, keep: frozenset[str] = frozenset()) -> Extraction:
    """``extraction`` without the entities whose confidence is below ``min_confidence``, except
    those whose key is in ``keep`` (an entity without a confidence is kept). A mention that was
    nested only inside a dropped entity's span is no longer nested.

    >>> from paperkg.types import Mention, Paper
    >>> inner = Mention(7, 18, "Transformer", "Method", "transformer", "used", "", nested=True)
    >>> a = PaperEntity("transformer", "Transformer", "Method", "used", (inner,), "", confidence=0.9)
    >>> b = PaperEntity("sparse transformer", "Sparse Transformer", "Method", "used",
    ...                 (Mention(0, 18, "Sparse Transformer", "Method", "sparse transformer", "used", ""),), "", confidence=0.1)
    >>> x = keep_confident(Extraction(Paper("p", "Sparse Transformer"), "p", (a, b)), 0.3)
    >>> [(e.name, e.mentions[0].nested) for e in x.entities]
    [('Transformer', False)]
    """
    if min_confidence <= 0:
        return extraction
    kept = tuple(e for e in extraction.entities
                 if e.confidence is None or e.confidence >= min_confidence or e.key in keep)
    if len(kept) == len(extraction.entities):
        return extraction
    spans = sorted({(m.start, m.end) for e in kept for m in e.mentions})
    starts = [s for s, _ in spans]

    def inside_another(m) -> bool:
        # Spans starting at or before m's start; few per mention, as spans rarely nest deeply.
        return any((s, e) != (m.start, m.end) and e >= m.end for s, e in spans[: bisect_right(starts, m.start)])

    kept = tuple(
        e if not any(m.nested for m in e.mentions)
        else replace(e, mentions=tuple(replace(m, nested=inside_another(m)) if m.nested else m for m in e.mentions))
        for e in kept
    )
    return replace(extraction, entities=kept)
