"""Distant supervision from the unlabeled abstracts, with partial labels.

In each unlabeled abstract the whole extractor (the known lists, the curated table, acronym
definitions and a trained NER, as :func:`paperkg.extract.run.corpus.extract_papers` runs them)
finds entities; those at or above a confidence become NER spans. Words that are never entities
(:func:`~paperkg.extract.nlp.filtering.is_non_entity`, pronouns and copulas) are *outside*, and
every other token is *missing* (spaCy's ``Doc.set_ents(..., default="missing")``), so the NER is
not taught that the spans the teacher did not find are not entities.

    python -m paperkg.extract.learn.distant make --docs 2000 --out distant.jsonl   # PAPERKG_MODEL: the teacher
    train_model(gold_dir, out, overrides={"paperkg.distant_file": "distant.jsonl"})

Abstracts whose text is in a gold file (the older gold abstracts come from ``unlabeled/``)
are skipped: the dev split is never seen, even with the teacher's labels.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from spacy.language import Language
from spacy.training import Example

from paperkg.atomic import atomic_write_text, json_line
from paperkg.errors import InputError

#: NER label of each entity type (Benchmark as DATASET, as the paper-level gold is read).
NER_LABEL = {"Method": "METHOD", "Dataset": "DATASET", "Benchmark": "DATASET", "Task": "TASK", "Metric": "METRIC"}
#: Words that are outside every entity of our convention, whatever the teacher missed.
OUTSIDE_WORDS = frozenset("we our us this these those it its they their is are was were be been which that".split())
_SPACES = re.compile(r"\s+")


def _plain(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def gold_texts(gold_dir: Path) -> set[str]:
    """The texts of every gold JSONL file under ``gold_dir`` (``abstract`` or ``text``), spaced
    and cased alike, so that an unlabeled abstract that is also a gold one can be skipped."""
    texts = set()
    for path in sorted(gold_dir.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                text = record.get("abstract") or record.get("text")
                if isinstance(text, str):
                    texts.add(_plain(text))
    return texts


def unlabeled_abstracts(path: Path, n: int, seed: int, skip: set[str]) -> list[tuple[str, str]]:
    """``n`` (id, abstract) pairs drawn with ``seed`` from the gzipped JSONL of unlabeled abstracts,
    none of whose text is in ``skip``."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    rows = [(str(r["id"]), r["abstract"]) for r in records if isinstance(r.get("abstract"), str)
            and len(r["abstract"]) >= 200 and _plain(r["abstract"]) not in skip]
    random.Random(seed).shuffle(rows)
    return rows[:n]


def teacher_spans(extraction, min_confidence: float) -> list[tuple[int, int, str]]:
    """The NER spans of one extraction: every top-level mention of an entity at or above
    ``min_confidence``, labelled by its type."""
    return sorted(
        (m.start, m.end, NER_LABEL[entity.type])
        for entity in extraction.entities
        if (entity.confidence or 0.0) >= min_confidence and entity.type in NER_LABEL
        for m in entity.mentions
        if not m.nested
    )


def distant_records(papers, min_confidence: float) -> Iterator[dict]:
    """One partially labelled record per paper (``text``, ``entities``), from the extractor."""
    from paperkg.extract.run.corpus import extract_papers

    extractions = extract_papers(papers, n_process=1, use_model=True, progress=True, min_confidence=0.0)
    for paper, extraction in zip(papers, extractions):
        spans = teacher_spans(extraction, min_confidence)
        yield {"id": paper.id, "text": paper.abstract,
               "entities": [{"start": s, "end": e, "label": lab} for s, e, lab in spans]}


def read_distant(path: Path) -> list[dict]:
    """The records of a distant file written by :func:`make_distant_file`, checked line by line."""
    records = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            try:
                record = json.loads(line)
                text, entities = record["text"], record["entities"]
                spans = [(int(e["start"]), int(e["end"]), str(e["label"])) for e in entities]
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"{path}:{number}: not a distant record ({exc})") from exc
            if not all(0 <= s < e <= len(text) for s, e, _ in spans):
                raise InputError(f"{path}:{number}: a span lies outside the text")
            records.append({"text": text, "spans": spans})
    return records


def distant_example(nlp: Language, text: str, spans: Iterable[tuple[int, int, str]]) -> Example:
    """A training example whose entities are ``spans``, whose never-entity words are outside, and
    whose every other token is missing (no loss)."""
    from spacy.util import filter_spans

    from paperkg.extract.nlp.filtering import is_non_entity

    reference = nlp.make_doc(text)
    ents = filter_spans([span for s, e, label in spans
                         if (span := reference.char_span(s, e, label=label, alignment_mode="expand")) is not None])
    taken = {i for span in ents for i in range(span.start, span.end)}
    # A never-entity word is one token or a hyphen compound of three ("zero", "-", "shot").
    words = [reference[i : i + n] for n in (1, 3) for i in range(len(reference) - n + 1)]
    outside = filter_spans([w for w in words if not taken.intersection(range(w.start, w.end))
                            and (w.text.lower() in OUTSIDE_WORDS or w.text in (".", ",", ";", ":")
                                 or (len(w) == 1 or w[1].text == "-" and " " not in w.text) and is_non_entity(w.text))])
    reference.set_ents(ents, outside=outside, default="missing")
    return Example(nlp.make_doc(text), reference)


def make_distant_file(data_dir: Path, out: Path, *, docs: int, seed: int, min_confidence: float) -> int:
    """Write ``docs`` partially labelled unlabeled abstracts to ``out``; return how many spans."""
    from paperkg.types import Paper

    source = data_dir / "unlabeled" / "abstracts.jsonl.gz"
    if not source.is_file():
        raise InputError(f"{source}: the unlabeled abstracts are not there")
    rows = unlabeled_abstracts(source, docs, seed, gold_texts(data_dir / "gold"))
    papers = [Paper(id=i, abstract=text) for i, text in rows]
    records = list(distant_records(papers, min_confidence))
    atomic_write_text(out, "".join(json_line(r) for r in records))
    return sum(len(r["entities"]) for r in records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make", help="label unlabeled abstracts with the extractor's confident entities")
    make.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    make.add_argument("--docs", type=int, default=2000)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--min-confidence", type=float, default=0.8)
    make.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    spans = make_distant_file(args.data, args.out, docs=args.docs, seed=args.seed, min_confidence=args.min_confidence)
    print(f"{args.out}: {args.docs} abstracts, {spans} spans")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
