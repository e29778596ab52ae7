"""What the per-document NLP hands on: plain data, so that it crosses process boundaries and
fills the extraction store (:mod:`paperkg.extract.run.store`) without a spaCy ``Doc``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocMentions:
    """The per-document output of the spaCy stage, as plain data.

    ``mentions`` rows are ``(start, end, type, role, origin, sentence_start, sentence_end, nested)``;
    ``abbreviations`` rows are ``(long_start, long_end, short_start, short_end)``.
    """

    mentions: tuple[tuple[int, int, str, str, str, int, int, bool], ...]
    abbreviations: tuple[tuple[int, int, int, int], ...]


def doc_record(doc) -> tuple[DocMentions, tuple[str, ...]]:
    """The plain data the spaCy component left on ``doc``: its mentions and its notes (work
    the per-document budget cut short, :mod:`paperkg.extract.nlp.budget`)."""
    mentions = DocMentions(
        mentions=tuple(tuple(row) for row in doc._.paperkg_mentions),
        abbreviations=tuple(tuple(row) for row in doc._.paperkg_abbreviations),
    )
    return mentions, tuple(doc._.paperkg_notes or ())
