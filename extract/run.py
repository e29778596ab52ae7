"""Run extraction over papers: batch through ``nlp.pipe(..., as_tuples=True)``, then resolve."""

from __future__ import annotations

import logging
from typing import Sequence

from tqdm import tqdm

from paperkg.extract.canonical import DocMentions, resolve_corpus
from paperkg.extract.markup import mask_markup
from paperkg.extract.pipeline import build_pipeline
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
    ``paper.abstract`` exactly as read.
    """
    nlp = build_pipeline(use_model)
    items = ((mask_markup(paper.abstract), index) for index, paper in enumerate(papers))
    docs: list[DocMentions | None] = [None] * len(papers)
    stream = nlp.pipe(items, as_tuples=True, n_process=n_process, batch_size=batch_size)
    for doc, index in tqdm(stream, total=len(papers), desc="extract", unit="abstract", disable=not progress):
        for note in doc._.paperkg_notes or ():
            # Over the per-document work budget (paperkg.extract.budget): said, never silent.
            log.warning(f"{papers[index].source or papers[index].id}:{papers[index].line}: {note}")
        docs[index] = DocMentions(
            mentions=tuple(tuple(row) for row in doc._.paperkg_mentions),
            abbreviations=tuple(tuple(row) for row in doc._.paperkg_abbreviations),
        )
    return resolve_corpus(papers, docs)
