"""The spaCy pipeline: a blank English tokenizer, a sentencizer, the trained NER, and one
component that wires the plain-function rules in.

The component only connects spaCy to :mod:`~paperkg.extract.abbreviations`,
:mod:`~paperkg.extract.rules`, :mod:`~paperkg.extract.normalize` and the gazetteer; its output is
plain data on ``doc._.paperkg_mentions`` (tuples of ints and strings), so ``n_process > 1`` works.
"""

from __future__ import annotations

import logging
import os
import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from paperkg.errors import ExtractionError
from paperkg.extract.abbreviations import find_abbreviations
from paperkg.extract.filtering import reject_reason, trim_candidate
from paperkg.extract.gazetteer import GazetteerEntry, load_gazetteer
from paperkg.extract.normalize import is_generic, normalize_key, strip_vague_prefix, trim_span
from paperkg.extract.rules import proposal_spans, role_for, type_from_head

#: Where ``paperkg train`` writes, and where the pipeline loads the shipped model from;
#: ``PAPERKG_MODEL`` points the pipeline at another trained model (``paperkg train --output DIR``).
PACKAGED_MODEL_DIR = Path(__file__).parent / "model" / "ner"
MODEL_DIR = Path(os.environ.get("PAPERKG_MODEL") or PACKAGED_MODEL_DIR)

MODEL_LABELS = {"METHOD": "Method", "TASK": "Task", "DATASET": "Dataset", "METRIC": "Metric"}
_CONTEXT_TYPE = re.compile(r"^\s*(dataset|datasets|corpus|benchmark|benchmarks|suite|environment|environments)\b", re.I)
_CONTEXT_TYPES = {"dataset": "Dataset", "datasets": "Dataset", "corpus": "Dataset"}

# Priorities when candidates overlap: the statistical model's spans win (they follow the gold's
# span conventions, which scores best on the dev splits), then definitions and coined names, then
# list lookups; a rule span strictly inside a model span is kept as a nested mention.
PRIORITY = {"model": 3, "abbreviation": 2, "proposal": 2, "gazetteer": 1}

if not Doc.has_extension("paperkg_mentions"):
    Doc.set_extension("paperkg_mentions", default=None)
    Doc.set_extension("paperkg_abbreviations", default=None)


class EntityComponent:
    """Collect candidates from every source, resolve overlaps, and attach type and role."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        self.entries: list[GazetteerEntry] = list(load_gazetteer())
        self.type_by_key = {}
        for entry in self.entries:
            self.type_by_key.setdefault(normalize_key(entry.surface), entry.type)
        self.cased = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        surfaces = [entry.surface for entry in self.entries]
        for index, doc in enumerate(nlp.tokenizer.pipe(surfaces, batch_size=1000)):
            matcher = self.cased if self.entries[index].case_sensitive else self.lower
            matcher.add(str(index), [doc])

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        candidates: list[tuple[int, int, str, str]] = []  # (start, end, type, origin)
        abbreviations = find_abbreviations(text)
        for abbr in abbreviations:
            long_form = text[abbr.long_start : abbr.long_end]
            kind = self._type_for(long_form) or "Method"
            candidates.append((abbr.long_start, abbr.long_end, kind, "abbreviation"))
            short = re.escape(text[abbr.short_start : abbr.short_end].rstrip("s"))
            for match in re.finditer(rf"(?<![\w\-]){short}s?(?![\w\-])", text):
                candidates.append((match.start(), match.end(), kind, "abbreviation"))
        sentences = [(sent.start_char, sent.end_char) for sent in doc.sents]
        sentence_starts = [start for start, _ in sentences]
        for sent in doc.sents:
            for start, end in proposal_spans(sent.text):
                name = sent.text[start:end]
                candidates.append((sent.start_char + start, sent.start_char + end, type_from_head(name) or self._type_for(name) or "Method", "proposal"))
        for matcher in (self.cased, self.lower):
            for match_id, start, end in matcher(doc):
                entry = self.entries[int(self.vocab_string(doc, match_id))]
                span = doc[start:end]
                candidates.append((span.start_char, span.end_char, entry.type, "gazetteer"))
        for ent in doc.ents:
            if ent.label_ in MODEL_LABELS:
                candidates.append((ent.start_char, ent.end_char, MODEL_LABELS[ent.label_], "model"))
        # At a definition "long form (SF)", the short form takes the role of the long form.
        role_anchor = {a.short_start: a.long_start for a in abbreviations}
        mentions = []
        for start, end, kind, origin, nested in resolve_overlaps(self._clean(text, candidates)):
            s_start, s_end = sentences[max(bisect_right(sentence_starts, start) - 1, 0)]
            kind = _context_type(text, end) or kind
            anchor = max(role_anchor.get(start, start), s_start)
            role = role_for(text[s_start:s_end], anchor - s_start, end - s_start, origin=origin)
            if role == "proposed" and origin != "proposal" and normalize_key(text[start:end]) in self.type_by_key:
                role = "used"  # a name in the gazetteer is known already, so this paper did not introduce it
            mentions.append((start, end, kind, role, origin, s_start, s_end, nested))
        doc._.paperkg_mentions = mentions
        doc._.paperkg_abbreviations = [
            (a.long_start, a.long_end, a.short_start, a.short_end) for a in abbreviations
        ]
        return doc

    @staticmethod
    def vocab_string(doc: Doc, match_id: int) -> str:
        return doc.vocab.strings[match_id]

    def _type_for(self, name: str) -> str | None:
        return self.type_by_key.get(normalize_key(name)) or type_from_head(name)

    def _clean(self, text: str, candidates: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
        cleaned = []
        for start, end, kind, origin in candidates:
            start, end = trim_span(text, start, end)
            if origin != "gazetteer":
                start, end = trim_candidate(text, start, end)
            if origin == "model":
                start, end = strip_vague_prefix(text, start, end)
                kind = type_from_head(text[start:end]) or kind
            if end <= start or is_generic(text[start:end]):
                continue
            # The candidate filter: a name the gazetteer knows is an entity whatever its form.
            if origin != "gazetteer" and normalize_key(text[start:end]) not in self.type_by_key and reject_reason(text[start:end]):
                continue
            cleaned.append((start, end, kind, origin))
        return cleaned


def _context_type(text: str, end: int) -> str | None:
    """"on the X benchmark" makes X a Benchmark, "the X dataset" a Dataset."""
    match = _CONTEXT_TYPE.match(text, end)
    if not match:
        return None
    return _CONTEXT_TYPES.get(match.group(1).lower(), "Benchmark")


def resolve_overlaps(candidates: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str, bool]]:
    """Keep the best of overlapping candidates (higher priority, then longer, then earlier),
    flagged ``nested=False``; a known name strictly inside a kept span stays too, as nested.

    Nested mentions let "MuJoCo" link papers even where the model tagged "Gymnasium's MuJoCo
    tasks" as one span, and keep "LESR" where it tagged "LLM-Empowered State Representation
    (LESR)"; evaluation against flat gold scores only the top-level spans.

    >>> resolve_overlaps([(0, 15, "Method", "model"), (7, 15, "Method", "gazetteer"), (20, 23, "Task", "model")])
    [(0, 15, 'Method', 'model', False), (7, 15, 'Method', 'gazetteer', True), (20, 23, 'Task', 'model', False)]
    >>> resolve_overlaps([(0, 15, "Method", "proposal"), (7, 15, "Method", "gazetteer")])
    [(0, 15, 'Method', 'proposal', False)]
    >>> resolve_overlaps([(0, 10, "Method", "model"), (5, 12, "Method", "abbreviation")])
    [(0, 10, 'Method', 'model', False)]
    """
    ranked = sorted(set(_extend_model_spans(candidates)), key=lambda c: (-PRIORITY[c[3]], -(c[1] - c[0]), c[0], c[2]))
    taken: list[tuple[int, int, str, str]] = []
    nested: list[tuple[int, int, str, str]] = []
    for cand in ranked:
        overlapping = [other for other in taken if not (cand[1] <= other[0] or cand[0] >= other[1])]
        if not overlapping:
            taken.append(cand)
        elif cand[3] != "model" and all(o[3] == "model" and o[0] <= cand[0] and cand[1] <= o[1] for o in overlapping):
            if not any(n[0] < cand[1] and cand[0] < n[1] for n in nested):
                nested.append(cand)
    return sorted([(*c, False) for c in taken] + [(*c, True) for c in nested])


def _extend_model_spans(candidates: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """A known name that crosses a model span's edge means the model cut a name in two:
    widen the model span to cover it ("score-based diffusion" + "diffusion model").

    >>> _extend_model_spans([(0, 21, "Method", "model"), (12, 27, "Method", "gazetteer")])
    [(0, 27, 'Method', 'model'), (12, 27, 'Method', 'gazetteer')]
    """
    known = [c for c in candidates if c[3] == "gazetteer"]
    extended = []
    for start, end, kind, origin in candidates:
        if origin == "model":
            for k_start, k_end, _, _ in known:
                crosses_end = start < k_start < end < k_end
                crosses_start = k_start < start < k_end < end
                if crosses_end or crosses_start:
                    start, end = min(start, k_start), max(end, k_end)
        extended.append((start, end, kind, origin))
    return extended


@Language.factory("paperkg_entities")
def make_entity_component(nlp: Language, name: str) -> EntityComponent:
    return EntityComponent(nlp, name)


@lru_cache(maxsize=2)
def build_pipeline(use_model: bool = True) -> Language:
    """The extraction pipeline; ``use_model=False`` runs the rules and gazetteers alone."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    if use_model and not (MODEL_DIR / "meta.json").exists():
        # A broken install should still extract, but never quietly: say what is missing.
        logging.getLogger("paperkg").warning(
            f"the trained model is missing at {MODEL_DIR}; using rules and gazetteers only (run 'paperkg train')"
        )
    elif use_model:
        try:
            trained = spacy.load(MODEL_DIR)
        except (OSError, ValueError) as exc:
            raise ExtractionError(f"cannot load the trained model at {MODEL_DIR}: {exc}") from exc
        nlp.add_pipe("ner", source=trained)
    nlp.add_pipe("paperkg_entities")
    return nlp
