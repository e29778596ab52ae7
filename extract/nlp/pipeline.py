"""The spaCy pipeline: a blank English tokenizer, a sentencizer, the trained NER, and one
component that wires the plain-function rules in.

The component only connects spaCy to :mod:`~paperkg.extract.nlp.abbreviations`,
:mod:`~paperkg.extract.nlp.rules`, :mod:`~paperkg.extract.nlp.normalize` and the gazetteer; its output is
plain data on ``doc._.paperkg_mentions`` (tuples of ints and strings), so ``n_process > 1`` works.
"""

from __future__ import annotations

import logging
import os
import re
from bisect import bisect_left, bisect_right
from functools import lru_cache
from pathlib import Path

import numpy
import spacy
from spacy.attrs import IDX, LENGTH, SENT_START
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc
from thinc.api import Model, NumpyOps

from paperkg.errors import ExtractionError
from paperkg.extract.nlp.abbreviations import find_abbreviations, find_short_forms
from paperkg.extract.nlp.budget import BudgetExceeded, Steps
from paperkg.extract.nlp.filtering import is_non_entity, outside_urls, reject_reason, trim_candidate
from paperkg.extract.nlp.gazetteer import GazetteerEntry, load_gazetteer
from paperkg.extract.nlp.normalize import is_generic, normalize_key, strip_vague_prefix, trim_span
from paperkg.extract.nlp.rules import proposal_spans, role_for, type_from_head

#: Where ``paperkg train`` writes, and where the pipeline loads the shipped model from;
#: ``PAPERKG_MODEL`` points the pipeline at another trained model (``paperkg train --output DIR``).
PACKAGED_MODEL_DIR = Path(__file__).parent.parent / "model" / "ner"
MODEL_DIR = Path(os.environ.get("PAPERKG_MODEL") or PACKAGED_MODEL_DIR)

MODEL_LABELS = {"METHOD": "Method", "TASK": "Task", "DATASET": "Dataset", "METRIC": "Metric"}
# "the X dataset", "X benchmark", and the appositive "X, a new large-scale benchmark".
_CONTEXT_TYPE = re.compile(
    r"(?:,\s*(?:a|an|the)\s+(?:[a-z][\w-]*\s+){0,2}?)?\s*(dataset|datasets|corpus|benchmark|benchmarks|suite|"
    r"environment|environments)\b", re.I)
_CONTEXT_TYPES = {"dataset": "Dataset", "datasets": "Dataset", "corpus": "Dataset"}

# Priorities when candidates overlap: the statistical model's spans win (they follow the gold's
# span conventions, which scores best on the dev splits), then definitions and coined names, then
# list lookups; a rule span strictly inside a model span is kept as a nested mention.
PRIORITY = {"model": 3, "abbreviation": 2, "proposal": 2, "gazetteer": 1}

if not Doc.has_extension("paperkg_mentions"):
    Doc.set_extension("paperkg_mentions", default=None)
    Doc.set_extension("paperkg_abbreviations", default=None)
if not Doc.has_extension("paperkg_notes"):
    Doc.set_extension("paperkg_notes", default=None)


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
        self.entry_by_match: dict[int, GazetteerEntry] = {}
        surfaces = [entry.surface for entry in self.entries]
        # The gazetteer's ~12k names would fill the tokenizer's chunk cache (10k chunks) for good
        # and leave no room for the abstracts' words: tokenizing them uncached keeps the cache
        # for the text (tokenization was 5x slower with it full).
        tokenizer = nlp.tokenizer
        cache_size, tokenizer.max_cache_size = tokenizer.max_cache_size, 0
        try:
            for index, doc in enumerate(tokenizer.pipe(surfaces, batch_size=1000)):
                matcher = self.cased if self.entries[index].case_sensitive else self.lower
                matcher.add(str(index), [doc])
                self.entry_by_match[nlp.vocab.strings[str(index)]] = self.entries[index]
        finally:
            tokenizer.max_cache_size = cache_size

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        candidates: list[tuple[int, int, str, str]] = []  # (start, end, type, origin)
        steps = Steps.for_text(text)
        notes: list[str] = []
        try:
            abbreviations = find_abbreviations(text, steps)
        except BudgetExceeded as exc:
            abbreviations = []
            notes.append(f"abbreviation detection skipped: {exc}")
        kinds: dict[str, list[str]] = {}
        model_ents = [(e.start_char, e.end_char, MODEL_LABELS[e.label_]) for e in doc.ents if e.label_ in MODEL_LABELS]
        model_ends = [end for _, end, _ in model_ents]
        for abbr in abbreviations:
            long_form = text[abbr.long_start : abbr.long_end]
            # Unknown long forms take the type the NER gave the same words, else Method.
            kind = (self._type_for(long_form) or _overlapping_type(model_ents, model_ends, abbr.long_start, abbr.long_end)
                    or "Method")
            candidates.append((abbr.long_start, abbr.long_end, kind, "abbreviation"))
            short_kinds = kinds.setdefault(text[abbr.short_start : abbr.short_end], [])
            if kind not in short_kinds:
                short_kinds.append(kind)
        try:
            uses = list(find_short_forms(text, kinds, steps))
        except BudgetExceeded as exc:
            uses = []
            notes.append(f"short-form matching skipped: {exc}")
        for start, end, short in uses:
            candidates.extend((start, end, kind, "abbreviation") for kind in kinds[short])
        # Token offsets as arrays: Doc.sents and Span objects build a Python object per token.
        starts_at, ends_at, sentences = _token_offsets(doc)
        sentence_starts = [start for start, _ in sentences]
        # One string per sentence (Span.text rebuilds itself from the tokens on every access).
        sentence_texts = [text[start:end] for start, end in sentences]
        for (s_start, _), sentence in zip(sentences, sentence_texts):
            for start, end in proposal_spans(sentence):
                name = sentence[start:end]
                candidates.append((s_start + start, s_start + end, type_from_head(name) or self._type_for(name) or "Method", "proposal"))
        for matcher in (self.cased, self.lower):
            for match_id, start, end in matcher(doc):
                candidates.append((starts_at[start], ends_at[end - 1], self.entry_by_match[match_id].type, "gazetteer"))
        candidates.extend((start, end, kind, "model") for start, end, kind in model_ents)
        # At a definition "long form (SF)", the short form takes the role of the long form.
        role_anchor = {a.short_start: a.long_start for a in abbreviations}
        mentions = []
        cleaned = self._clean(text, outside_urls(text, candidates))
        try:
            resolved = resolve_overlaps(cleaned, steps)
        except BudgetExceeded as exc:
            resolved = sorted((*c, False) for c in set(cleaned) if c[3] == "model")
            notes.append(f"rule mentions dropped, model mentions kept: overlap resolution {exc}")
        # A name the abstract calls a dataset or benchmark once ("KITAB, a new dataset") is one
        # in every sentence of it: the NER types its later mentions alone, often as a Method.
        said = {}
        for start, end, *_ in resolved:
            context = _context_type(text, end)
            if context:
                said.setdefault(normalize_key(text[start:end]), context)
        for start, end, kind, origin, nested in resolved:
            index = max(bisect_right(sentence_starts, start) - 1, 0)
            s_start, s_end = sentences[index]
            kind = _context_type(text, end) or said.get(normalize_key(text[start:end])) or kind
            anchor = max(role_anchor.get(start, start), s_start)
            role = role_for(sentence_texts[index], anchor - s_start, end - s_start, origin=origin)
            if role == "proposed" and origin != "proposal" and normalize_key(text[start:end]) in self.type_by_key:
                role = "used"  # a name in the gazetteer is known already, so this paper did not introduce it
            mentions.append((start, end, kind, role, origin, s_start, s_end, nested))
        doc._.paperkg_mentions = mentions
        doc._.paperkg_abbreviations = [
            (a.long_start, a.long_end, a.short_start, a.short_end) for a in abbreviations
        ]
        doc._.paperkg_notes = notes
        return doc

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
            if end <= start or not self._acceptable(text[start:end], origin == "gazetteer"):
                continue
            cleaned.append((start, end, kind, origin))
        return _drop_cut_model_spans(cleaned)

    @lru_cache(maxsize=1 << 16)  # noqa: B019 - one component per pipeline; names recur across abstracts
    def _acceptable(self, name: str, known: bool) -> bool:
        if is_generic(name) or is_non_entity(name):
            return False
        # The candidate filter: a name the gazetteer knows is an entity whatever its form.
        return known or normalize_key(name) in self.type_by_key or not reject_reason(name)


def _token_offsets(doc: Doc) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """Each token's start and end character, and the ``(start_char, end_char)`` of each
    sentence, as ``Doc.sents`` gives them (a sentence starts at a token whose SENT_START is 1)."""
    if not len(doc):
        return [], [], []
    rows = doc.to_array([IDX, LENGTH, SENT_START]).astype(numpy.int64)  # SENT_START -1 comes as 2**64 - 1
    starts, ends = rows[:, 0], rows[:, 0] + rows[:, 1]
    cuts = numpy.flatnonzero(rows[1:, 2] == 1) + 1
    firsts, lasts = numpy.concatenate(([0], cuts)), numpy.concatenate((cuts, [len(rows)])) - 1
    return starts.tolist(), ends.tolist(), list(zip(starts[firsts].tolist(), ends[lasts].tolist()))


def _drop_cut_model_spans(candidates: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """A model span that a known name extends on one side ("Atari" of "Atari 100K") was cut
    short: the known name stands instead.

    >>> _drop_cut_model_spans([(0, 5, "Benchmark", "model"), (0, 10, "Benchmark", "gazetteer")])
    [(0, 10, 'Benchmark', 'gazetteer')]
    """
    longest_from: dict[int, int] = {}
    earliest_to: dict[int, int] = {}
    for start, end, _, origin in candidates:
        if origin == "gazetteer":
            longest_from[start] = max(end, longest_from.get(start, end))
            earliest_to[end] = min(start, earliest_to.get(end, start))
    return [
        c for c in candidates
        if c[3] != "model" or not (longest_from.get(c[0], c[1]) > c[1] or earliest_to.get(c[1], c[0]) < c[0])
    ]


def _overlapping_type(spans: list[tuple[int, int, str]], ends: list[int], start: int, end: int) -> str | None:
    """The type of the longest of ``spans`` overlapping ``[start, end)``, if any. ``spans`` are
    the NER's (sorted, never overlapping, so their ``ends`` are sorted too): one bisection finds
    the first that can overlap, and a document with thousands of definitions stays n·log n.

    >>> _overlapping_type([(0, 4, "Task"), (4, 20, "Method")], [4, 20], 2, 10)
    'Method'
    """
    overlapping = []
    for index in range(bisect_right(ends, start), len(spans)):
        s, e, kind = spans[index]
        if s >= end:
            break
        overlapping.append((min(e, end) - max(s, start), kind))
    return max(overlapping)[1] if overlapping else None


def _context_type(text: str, end: int) -> str | None:
    """"on the X benchmark" makes X a Benchmark, "the X dataset" a Dataset."""
    match = _CONTEXT_TYPE.match(text, end)
    if not match:
        return None
    return _CONTEXT_TYPES.get(match.group(1).lower(), "Benchmark")


def resolve_overlaps(
    candidates: list[tuple[int, int, str, str]], steps: Steps | None = None
) -> list[tuple[int, int, str, str, bool]]:
    """Keep the best of overlapping candidates (higher priority, then longer, then earlier),
    flagged ``nested=False``; a known name strictly inside a kept span stays too, as nested.

    Nested mentions let "MuJoCo" link papers even where the model tagged "Gymnasium's MuJoCo
    tasks" as one span, and keep "LESR" where it tagged "LLM-Empowered State Representation
    (LESR)"; evaluation against flat gold scores only the top-level spans.

    The ranking key is total (origin and type included), so the result does not depend on the
    order of ``candidates`` or on ``PYTHONHASHSEED``. Kept spans never overlap each other, so one
    bisection finds the only kept span a candidate can touch: n·log n overall.

    >>> resolve_overlaps([(0, 15, "Method", "model"), (7, 15, "Method", "gazetteer"), (20, 23, "Task", "model")])
    [(0, 15, 'Method', 'model', False), (7, 15, 'Method', 'gazetteer', True), (20, 23, 'Task', 'model', False)]
    >>> resolve_overlaps([(0, 15, "Method", "proposal"), (7, 15, "Method", "gazetteer")])
    [(0, 15, 'Method', 'proposal', False)]
    >>> resolve_overlaps([(0, 10, "Method", "model"), (5, 12, "Method", "abbreviation")])
    [(0, 10, 'Method', 'model', False)]
    """
    steps = steps if steps is not None else Steps()
    unique = set(_extend_model_spans(candidates, steps))
    log_n = max(len(unique), 2).bit_length()
    # Sorting, then two bisections per candidate: spent at once, as the loop below never stops early.
    steps.spend(3 * len(unique) * log_n)
    ranked = sorted(unique, key=lambda c: (-PRIORITY[c[3]], -(c[1] - c[0]), c[0], c[1], c[2], c[3]))
    taken = _DisjointSpans()
    nested = _DisjointSpans()
    for cand in ranked:
        other = taken.overlapping(cand[0], cand[1])
        if other is None:
            taken.add(cand)
        elif cand[3] != "model" and other[3] == "model" and other[0] <= cand[0] and cand[1] <= other[1]:
            # A kept span holding the candidate is the only kept span it touches (kept spans are disjoint).
            if nested.overlapping(cand[0], cand[1]) is None:
                nested.add(cand)
    return sorted([(*c, False) for c in taken.items] + [(*c, True) for c in nested.items])


class _DisjointSpans:
    """Non-overlapping spans sorted by start; their ends are then sorted too."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.items: list[tuple] = []

    def overlapping(self, start: int, end: int) -> tuple | None:
        """The span that overlaps ``[start, end)``, if any: only the last one starting before
        ``end`` can, as every earlier one ends before it."""
        index = bisect_left(self.starts, end)
        if index and self.items[index - 1][1] > start:
            return self.items[index - 1]
        return None

    def add(self, item: tuple) -> None:
        index = bisect_left(self.starts, item[0])
        self.starts.insert(index, item[0])
        self.items.insert(index, item)


def _extend_model_spans(
    candidates: list[tuple[int, int, str, str]], steps: Steps | None = None
) -> list[tuple[int, int, str, str]]:
    """A known name that crosses a model span's edge means the model cut a name in two:
    widen the model span to cover it ("score-based diffusion" + "diffusion model"), until no
    known name crosses it.

    Known names are sorted by start and by end; as the span grows, two pointer ranges (names
    starting inside it, names ending inside it) grow with it, and each name is looked at once
    per range: linear in the names the widened span touches.

    >>> _extend_model_spans([(0, 21, "Method", "model"), (12, 27, "Method", "gazetteer")])
    [(0, 27, 'Method', 'model'), (12, 27, 'Method', 'gazetteer')]
    >>> _extend_model_spans([(3, 5, "Task", "model"), (0, 4, "Task", "gazetteer"), (2, 8, "Task", "gazetteer")])
    [(0, 8, 'Task', 'model'), (0, 4, 'Task', 'gazetteer'), (2, 8, 'Task', 'gazetteer')]
    """
    steps = steps if steps is not None else Steps()
    by_start = sorted({(c[0], c[1]) for c in candidates if c[3] == "gazetteer"})
    by_end = sorted(by_start, key=lambda span: (span[1], span[0]))
    starts = [span[0] for span in by_start]
    ends = [span[1] for span in by_end]
    extended = []
    steps.spend(len(candidates))
    for start, end, kind, origin in candidates:
        if origin == "model" and by_start:
            start, end = _widen(start, end, by_start, starts, by_end, ends, steps)
        extended.append((start, end, kind, origin))
    return extended


def _widen(start, end, by_start, starts, by_end, ends, steps: Steps) -> tuple[int, int]:
    # Names starting strictly inside (start, end) are by_start[s_lo:s_hi]; one of them ending
    # after `end` crosses the end. Names ending strictly inside are by_end[e_lo:e_hi]; one of
    # them starting before `start` crosses the start. Both ranges only grow as the span does.
    s_lo = s_hi = bisect_right(starts, start)
    e_lo = e_hi = bisect_right(ends, start)
    while True:
        pointers = (s_lo, s_hi, e_lo, e_hi)
        s_lo, s_hi, start, end = _cover(starts, by_start, s_lo, s_hi, start, end)
        e_lo, e_hi, start, end = _cover(ends, by_end, e_lo, e_hi, start, end)
        if (s_lo, s_hi, e_lo, e_hi) == pointers:
            steps.spend(1 + (s_hi - s_lo) + (e_hi - e_lo))  # every pointer move
            return start, end


def _cover(keys, spans, lo, hi, start, end) -> tuple[int, int, int, int]:
    """Grow ``keys[lo:hi]`` (sorted) to every key strictly inside ``(start, end)``, widening the
    span over each name taken in; the same step for the names' starts and for their ends.

    >>> _cover([2, 6], [(2, 9), (6, 12)], 0, 0, 0, 5)
    (0, 2, 0, 12)
    """
    while hi < len(keys) and keys[hi] < end:
        start, end = min(start, spans[hi][0]), max(end, spans[hi][1])
        hi += 1
    while lo > 0 and keys[lo - 1] > start:
        lo -= 1
        start, end = min(start, spans[lo][0]), max(end, spans[lo][1])
    return lo, hi, start, end


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
        if trained.vocab.vectors.shape[0]:
            nlp.vocab.vectors = trained.vocab.vectors  # the NER reads the in-domain static vectors
        nlp.add_pipe("ner", source=trained)
        _numpy_gemm(nlp.get_pipe("ner").model)
    nlp.add_pipe("paperkg_entities")
    return nlp


def _numpy_gemm(model: Model) -> None:
    """Run the NER's matrix products through numpy's BLAS instead of thinc's bundled BLIS.

    The BLIS that thinc ships is built for a generic CPU (``BLIS_ARCH_DEBUG=1`` says
    ``generic``), about 3x slower than numpy's OpenBLAS on these shapes; the tok2vec's products
    were 60% of the NER's time. Other backends (GPU, Apple's Accelerate) are left as they are.
    """
    numpy_ops = NumpyOps(use_blis=False)
    for layer in model.walk():
        if type(layer.ops) is NumpyOps:
            layer.ops = numpy_ops
