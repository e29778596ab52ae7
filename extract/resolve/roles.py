"""Roles learned: ``proposed`` / ``used`` / ``mentioned`` per paper entity.

A multinomial logistic regression over a few features of an entity in its paper (the cue
rules of :mod:`~paperkg.extract.nlp.rules` on each mention, "our X", where the mentions sit in the
abstract, whether the title opens with the name ("X: ..."), whether the gazetteer knows it,
whether it looks coined), trained on the gold entities of ``paperkg_train.jsonl`` (:mod:`paperkg.extract.learn.roles`). The
weights ship as JSON beside the NER (``model/ner/roles.json``); ``paperkg train`` rebuilds them.

Pure functions and numpy only: features are computed from strings and offsets.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.nlp.rules import (
    NAMING_CUE,
    OWN_CUE,
    PROPOSER,
    USE_CUE,
    in_proposal_object,
    is_name_like,
    proposal_spans,
)
from paperkg.types import ROLES, Extraction

#: The role model's file name inside the model directory (``paperkg.extract.nlp.pipeline.MODEL_DIR``).
ROLES_FILE = "roles.json"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$\\(])|(?<=[a-z]\.)(?=[A-Z][a-z])")
_BACKGROUND = re.compile(
    r"\b(?:recent(?:ly)?|have (?:shown|been|become|achieved|emerged)|has (?:shown|been|become|emerged)|"
    r"existing|prior|previous(?:ly)?|traditional|conventional|popular|widely|however|typically|often|"
    r"remains?|suffer\w*|limited|struggle\w*)\b",
    re.I,
)
_RESULT = re.compile(r"\b(?:experiment\w*|results?|outperform\w*|demonstrat\w*|achiev\w*|evaluat\w*|benchmark\w*|surpass\w*)\b", re.I)
_OWN_BEFORE = re.compile(r"\b(?:our|the proposed|this new)\s+(?:[\w\-]+\s+){0,2}$", re.I)
_ALSO_PROPOSE = re.compile(r"\b(?:we|this paper|this work)\s+(?:\w+\s+){0,2}(?:propose|introduce|present|develop|design)", re.I)

FEATURES = (
    "bias", "in_proposal_object", "own_cue", "naming_cue", "use_cue_sentence", "background_sentence",
    "result_sentence", "first_sentence", "last_sentence", "relative_position", "log_mentions", "title_opens_with",
    "in_title", "coined", "known", "proposer_sentence", "type_Method", "type_Task", "type_Dataset",
    "type_Benchmark", "type_Metric", "acronym_defined", "coined_unknown", "coined_in_title",
    "coined_in_proposal", "defined_in_proposal", "proposal_pattern",
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence ``(start, end)`` offsets by punctuation (also "word.Next" without a space).

    >>> text = "We propose X. It works.Then more."
    >>> [text[s:e] for s, e in split_sentences(text)]
    ['We propose X.', 'It works.', 'Then more.']
    """
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def title_head(title: str | None) -> str | None:
    """The coined name a title opens with ("DeepSPF: Spherical ..." -> "DeepSPF"), if any.

    >>> title_head("DeepSPF: Spherical SO(3)-Equivariant Patches"), title_head("On the Theory of Things")
    ('DeepSPF', None)
    """
    if not title or ":" not in title:
        return None
    head = title.split(":", 1)[0].strip()
    return head if 0 < len(head) <= 40 and len(head.split()) <= 5 else None


@dataclass(frozen=True)
class SentenceCues:
    """The cues of one sentence that do not depend on where a mention sits in it: asked once
    per sentence, not once per mention, so a long sentence with many mentions stays linear."""

    text: str
    use_cue: bool
    background: bool
    result: bool
    proposer: bool
    proposal_spans: frozenset[tuple[int, int]]

    @classmethod
    def of(cls, sentence: str) -> SentenceCues:
        return cls(
            text=sentence,
            use_cue=bool(USE_CUE.search(sentence)),
            background=bool(_BACKGROUND.search(sentence)),
            result=bool(_RESULT.search(sentence)),
            proposer=bool(PROPOSER.search(sentence) and _ALSO_PROPOSE.search(sentence)),
            proposal_spans=frozenset(proposal_spans(sentence)),
        )


@dataclass(frozen=True)
class PaperContext:
    """What every entity of one paper shares: its sentences, its normalized title, and each
    sentence's cues (filled on first use)."""

    abstract: str
    sentences: tuple[tuple[int, int], ...]
    title_key: str
    title_head_key: str | None
    starts: tuple[int, ...] = ()
    _cues: dict[int, SentenceCues] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, abstract: str, title: str | None) -> PaperContext:
        head = title_head(title)
        sentences = tuple(split_sentences(abstract) or [(0, len(abstract))])
        return cls(
            abstract=abstract,
            sentences=sentences,
            title_key=f" {normalize_key(title)} " if title else "",
            title_head_key=normalize_key(head) if head else None,
            starts=tuple(start for start, _ in sentences),
        )

    def cues(self, index: int) -> SentenceCues:
        """The position-free cues of sentence ``index``."""
        found = self._cues.get(index)
        if found is None:
            start, end = self.sentences[index]
            found = self._cues[index] = SentenceCues.of(self.abstract[start:end])
        return found


def entity_features(
    context: PaperContext,
    spans: Sequence[tuple[int, int]],
    *,
    name: str,
    type_: str,
    known: bool,
    acronym_defined: bool = False,
) -> list[float]:
    """The feature vector (in :data:`FEATURES` order) of one entity with mentions ``spans``."""
    abstract, sentences, starts = context.abstract, context.sentences, context.starts
    flags = dict.fromkeys(FEATURES, 0.0)
    flags["bias"] = 1.0
    first_index = len(sentences)
    for start, end in spans:
        index = max(bisect_right(starts, start) - 1, 0)
        s_start, _ = sentences[index]
        cues = context.cues(index)
        sentence = cues.text
        offset = start - s_start
        first_index = min(first_index, index)
        if in_proposal_object(sentence, offset):
            flags["in_proposal_object"] = 1.0
        if (offset, end - s_start) in cues.proposal_spans:
            flags["proposal_pattern"] = 1.0  # "we propose X," / "a method called X"
        if OWN_CUE.search(sentence[max(0, offset - 60) : offset]) or _OWN_BEFORE.search(sentence[max(0, offset - 40) : offset]):
            flags["own_cue"] = 1.0
        if NAMING_CUE.search(sentence[max(0, offset - 12) : offset]):
            flags["naming_cue"] = 1.0
        if cues.use_cue:
            flags["use_cue_sentence"] = 1.0
        if cues.background:
            flags["background_sentence"] = 1.0
        if cues.result:
            flags["result_sentence"] = 1.0
        if cues.proposer:
            flags["proposer_sentence"] = 1.0
        if index == 0:
            flags["first_sentence"] = 1.0
        if index == len(sentences) - 1:
            flags["last_sentence"] = 1.0
    flags["relative_position"] = first_index / max(1, len(sentences) - 1)
    flags["log_mentions"] = math.log1p(len(spans))
    texts = {normalize_key(abstract[s:e]) for s, e in spans} | {normalize_key(name)}
    if context.title_head_key and context.title_head_key in texts:
        flags["title_opens_with"] = 1.0
    if context.title_key and any(t and f" {t} " in context.title_key for t in texts):
        flags["in_title"] = 1.0
    if any(is_name_like(abstract[s:e]) for s, e in spans) or is_name_like(name):
        flags["coined"] = 1.0
    flags["known"] = float(known)
    if f"type_{type_}" in flags:
        flags[f"type_{type_}"] = 1.0
    flags["acronym_defined"] = float(acronym_defined)
    # Interactions a linear model cannot form itself: a new coined name is the strongest cue.
    flags["coined_unknown"] = flags["coined"] * (1.0 - flags["known"])
    flags["coined_in_title"] = flags["coined"] * flags["in_title"]
    flags["coined_in_proposal"] = flags["coined"] * max(flags["in_proposal_object"], flags["proposer_sentence"])
    flags["defined_in_proposal"] = flags["acronym_defined"] * max(flags["in_proposal_object"], flags["proposer_sentence"])
    return [flags[f] for f in FEATURES]


@dataclass(frozen=True)
class RoleModel:
    """Weights of the role classifier: one row per role in :data:`~paperkg.types.ROLES` order."""

    weights: tuple[tuple[float, ...], ...]
    features: tuple[str, ...] = FEATURES

    def probabilities(self, x: Sequence[float]) -> list[float]:
        scores = numpy.asarray(self.weights) @ numpy.asarray(x, dtype=float)
        scores = numpy.exp(scores - scores.max())
        return list(scores / scores.sum())

    def predict(self, x: Sequence[float]) -> str:
        probs = self.probabilities(x)
        return ROLES[int(numpy.argmax(probs))]

    def predict_many(self, rows: Sequence[Sequence[float]]) -> list[str]:
        """The roles of many feature vectors in one matrix product (same as :meth:`predict` each)."""
        if not rows:
            return []
        scores = numpy.asarray(rows, dtype=float) @ numpy.asarray(self.weights).T
        return [ROLES[int(i)] for i in numpy.argmax(scores, axis=1)]

    def to_json(self) -> str:
        return json.dumps({"features": list(self.features), "roles": list(ROLES), "weights": [list(w) for w in self.weights]}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> RoleModel:
        data = json.loads(text)
        if tuple(data["features"]) != FEATURES or tuple(data["roles"]) != ROLES:
            raise ValueError("role model features or roles differ from this version of paperkg")
        return cls(weights=tuple(tuple(float(v) for v in w) for w in data["weights"]))


def known_keys() -> frozenset[str]:
    """Normalized names and aliases the curated table and the known lists hold."""
    from paperkg.extract.resolve.canonical import known_tables

    tables = known_tables()
    return frozenset(tables.types) | frozenset(tables.curated_aliases) | frozenset(tables.known_aliases)


@lru_cache(maxsize=4)
def load_role_model(path: Path | None = None) -> RoleModel | None:
    """The role model of the pipeline's model directory (or ``path``), or None when it is
    absent: the rule roles then stay."""
    from paperkg.extract.nlp.pipeline import MODEL_DIR

    path = Path(path) if path else MODEL_DIR / ROLES_FILE
    return RoleModel.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def assign_roles(extractions: Sequence[Extraction], model: RoleModel | None = None) -> list[Extraction]:
    """Replace each entity's rule role by the learned role; a mention's role is never stronger
    than its entity's (every mention of a proposed entity is proposed)."""
    model = model or load_role_model()
    if model is None:
        return list(extractions)
    known = known_keys()
    rows: list[list[float]] = []
    for extraction in extractions:
        paper = extraction.paper
        context = PaperContext.of(paper.abstract, paper.title)
        for entity in extraction.entities:
            spans = [(m.start, m.end) for m in entity.mentions if not m.nested] or [(m.start, m.end) for m in entity.mentions]
            rows.append(entity_features(
                context, spans, name=entity.name, type_=entity.type,
                known=entity.key in known,
                acronym_defined=any(m.origin == "abbreviation" for m in entity.mentions),
            ))
    roles = iter(model.predict_many(rows))
    out = []
    for extraction in extractions:
        entities = []
        for entity in extraction.entities:
            role = next(roles)
            mentions = tuple(
                replace(m, role=role) if role == "proposed" or ROLES.index(m.role) < ROLES.index(role) else m
                for m in entity.mentions
            )
            entities.append(replace(entity, role=role, mentions=mentions))
        out.append(replace(extraction, entities=tuple(entities)))
    return out
