"""Run extraction over papers: batch through ``nlp.pipe(..., as_tuples=True)``, then resolve."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Sequence

from tqdm import tqdm

from paperkg.extract.canonical import DocMentions, Resolved, resolve
from paperkg.extract.filtering import balanced
from paperkg.extract.markup import clean_name, mask_markup, widen_to_markup
from paperkg.extract.pipeline import build_pipeline
from paperkg.extract.roles import assign_roles
from paperkg.types import Extraction, Paper

log = logging.getLogger("paperkg")


def extract_papers(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
) -> list[Extraction]:
    """Typed, canonical entities for each paper, in input order.

    The NLP reads the abstract with markup blanked out (same length), so every offset indexes
    ``paper.abstract`` exactly as read. Roles come from the learned role model
    (:mod:`~paperkg.extract.roles`) over the rule cues.
    """
    return extract_corpus(papers, n_process=n_process, batch_size=batch_size, use_model=use_model,
                          progress=progress).extractions


def extract_corpus(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
) -> Resolved:
    """As :func:`extract_papers`, plus the entity-resolution report (``resolution.jsonl``)."""
    docs = extract_docs(papers, n_process=n_process, batch_size=batch_size, use_model=use_model, progress=progress)
    resolved = resolve(papers, docs)
    return replace(resolved, extractions=assign_roles(resolved.extractions))


def extract_docs(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
) -> list[DocMentions]:
    """The per-document NLP output (before corpus-level resolution), in input order."""
    nlp = build_pipeline(use_model)
    items = ((mask_markup(paper.abstract), index) for index, paper in enumerate(papers))
    docs: list[DocMentions | None] = [None] * len(papers)
    stream = nlp.pipe(items, as_tuples=True, n_process=n_process, batch_size=batch_size)
    for doc, index in tqdm(stream, total=len(papers), desc="extract", unit="abstract", disable=not progress):
        for note in doc._.paperkg_notes or ():
            # Over the per-document work budget (paperkg.extract.budget): said, never silent.
            log.warning(f"{papers[index].source or papers[index].id}:{papers[index].line}: {note}")
        text = papers[index].abstract
        widened = ((*widen_to_markup(text, row[0], row[1]), *row[2:]) for row in doc._.paperkg_mentions)
        docs[index] = DocMentions(
            # The filter read masked text; LaTeX can still leave an unclosed bracket in the raw name.
            mentions=tuple(row for row in widened if balanced(clean_name(text[row[0] : row[1]]))),
            abbreviations=tuple(tuple(row) for row in doc._.paperkg_abbreviations),
        )
    return docs
