"""Gold files as spaCy training examples: paper-level gold as span docs, full texts cut to their
first sections, gold spans (and *missing* spans) set on a reference ``Doc``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import filter_spans

from paperkg.errors import InputError
from paperkg.extract.nlp.markup import mask_markup
from paperkg.extract.read.gold import (
    SCORED_LABELS,
    GoldDoc,
    GoldEntity,
    GoldPaper,
    is_paper_level,
    read_gold,
    read_paper_gold,
)

#: paperkg entity type -> NER label (a Benchmark is tagged as DATASET; context and the
#: gazetteer tell the two apart in the pipeline).
PAPER_TYPE_LABELS = {"Method": "METHOD", "Task": "TASK", "Dataset": "DATASET", "Benchmark": "DATASET", "Metric": "METRIC"}


def paper_gold_docs(papers: Sequence[GoldPaper]) -> list[GoldDoc]:
    """Paper-level gold (``paperkg_train.jsonl``) as span docs: every mention of every entity,
    labelled by its entity's type (its mentions never overlap, so nothing is dropped). The text
    has its markup blanked, as the pipeline reads it; spans lose the blanks at their edges, and
    a mention that is markup only (a LaTeX macro) is left out."""
    docs = []
    for gp in papers:
        text = mask_markup(gp.paper.abstract)
        ents = []
        for g in gp.entities:
            for s, e in g.mentions:
                s, e = s + len(text[s:e]) - len(text[s:e].lstrip()), s + len(text[s:e].rstrip())
                if e > s:
                    ents.append(GoldEntity(start=s, end=e, label=PAPER_TYPE_LABELS[g.type], text=text[s:e]))
        ents.sort(key=lambda ent: (ent.start, ent.end))
        docs.append(GoldDoc(id=gp.paper.id, text=text, entities=tuple(ents), line=gp.line))
    return docs


def first_sections(doc: GoldDoc, n: int) -> GoldDoc:
    """The first ``n`` sections of a full-text doc (SciREX: "\n\nsection: Abstract ..."),
    with the entities inside them; a doc without sections is returned as it is."""
    markers = [m.start() for m in re.finditer(r"\n+section: ", doc.text)]
    if n <= 0 or len(markers) <= n:
        return doc
    cut = markers[n]
    return replace(doc, text=doc.text[:cut], entities=tuple(e for e in doc.entities if e.end <= cut))


def read_gold_file(gold_dir: Path, name: str, limit: int | None, sections: int = 0) -> list[GoldDoc]:
    path = gold_dir / name
    if not path.is_file():
        raise InputError(f"{path}: gold file not found (expected it under --gold-dir {gold_dir})")
    docs = paper_gold_docs(read_paper_gold(path)) if is_paper_level(path) else read_gold(path)
    docs = [first_sections(d, sections) for d in docs]
    return docs[:limit] if limit else docs


def _char_spans(
    doc: Doc, spans: Iterable[tuple[int, int, str]], gold: GoldDoc | None = None
) -> list[Span]:
    out = []
    for start, end, label in spans:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is None or not span.text.strip():  # pragma: no cover - tokenizer can't align
            where = f"{gold.source}:{gold.line}" if gold else "text"
            raise InputError(f"{where}: span [{start}, {end}) does not align to tokens")
        out.append(span)
    return out


def make_example(
    nlp: Language,
    gold: GoldDoc,
    labels: Iterable[str],
    *,
    missing: Iterable[tuple[int, int, str]] = (),
    extra: Iterable[tuple[int, int, str]] = (),
    default: str = "outside",
) -> Example:
    """One training example: gold spans of ``labels`` (overlaps resolved to the longest),
    ``extra`` spans added where they overlap no gold span, ``missing`` spans marked missing
    where they overlap no gold span, every other token ``default`` ("outside" or "missing")."""
    wanted = set(labels)
    reference = nlp.make_doc(gold.text)
    ents = filter_spans(
        _char_spans(
            reference,
            ((e.start, e.end, e.label) for e in gold.entities if e.label in wanted),
            gold,
        )
    )
    taken = {i for span in ents for i in range(span.start, span.end)}

    def free(spans: list[Span]) -> list[Span]:
        kept = []
        for span in filter_spans(spans):
            if not any(i in taken for i in range(span.start, span.end)):
                kept.append(span)
        return kept

    extra_spans = free(_char_spans(reference, extra))
    taken.update(i for span in extra_spans for i in range(span.start, span.end))
    missing_spans = free(_char_spans(reference, missing))
    reference.set_ents(ents + extra_spans, missing=missing_spans, default=default)
    return Example(nlp.make_doc(gold.text), reference)


def predict_spans(
    nlp: Language, texts: Sequence[str], *, labels: Iterable[str] = SCORED_LABELS, **pipe_kwargs: Any
) -> list[list[tuple[int, int, str]]]:
    """``(start_char, end_char, LABEL)`` of the pipeline's entities with one of ``labels``."""
    keep = set(labels)
    return [
        [(e.start_char, e.end_char, e.label_) for e in doc.ents if e.label_ in keep]
        for doc in nlp.pipe(texts, **pipe_kwargs)
    ]


