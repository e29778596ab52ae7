"""In-domain static word vectors for the NER (``include_static_vectors``).

``train_vectors`` trains word2vec (gensim, one worker and a fixed seed, so the result is
reproducible) on lower-cased tokens of the unlabelled abstracts (``../shared/data/unlabeled``)
and the corpus (``../shared/data/corpus``), keeps the most frequent words only (so the table
ships in the package) and writes them as a spaCy pipeline directory whose vocab holds the
vectors, keyed by ``LOWER``. ``paperkg train`` points ``[initialize] vectors`` at it.

gensim is needed only to rebuild the vectors (``pip install paperkg[train]``).
"""

from __future__ import annotations

import gzip
import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy
import spacy

from paperkg.errors import InputError
from paperkg.extract.nlp.markup import mask_markup

#: Where the packaged vectors live (a spaCy pipeline directory with vectors only).
PACKAGED_VECTORS_DIR = Path(__file__).parent.parent / "model" / "vectors"


@dataclass(frozen=True)
class VectorsReport:
    """What :func:`train_vectors` did."""

    output_dir: Path
    texts: int
    tokens: int
    words: int
    dim: int
    seconds: float

    def __str__(self) -> str:
        return (
            f"Vectors written to {self.output_dir}: {self.words} words x {self.dim} dims from "
            f"{self.texts} abstracts ({self.tokens / 1e6:.1f}M tokens) in {self.seconds / 60:.1f} min"
        )


def _abstracts(data_dir: Path, limit: int | None) -> Iterator[str]:
    files = sorted((data_dir / "unlabeled").glob("*.jsonl.gz")) + sorted((data_dir / "corpus").glob("*.jsonl"))
    if not files:
        raise InputError(f"{data_dir}: no unlabeled/*.jsonl.gz or corpus/*.jsonl to train vectors on")
    count = 0
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                try:
                    abstract = json.loads(line).get("abstract")
                except (json.JSONDecodeError, AttributeError):
                    continue
                if isinstance(abstract, str) and abstract.strip():
                    yield mask_markup(abstract)
                    count += 1
                    if limit and count >= limit:
                        return


def _stable_hash(text: str) -> int:
    # gensim seeds each word's initial vector with hash(); Python's str hash changes per process.
    return zlib.crc32(text.encode("utf-8"))


def train_vectors(
    data_dir: Path,
    output_dir: Path = PACKAGED_VECTORS_DIR,
    *,
    dim: int = 64,
    max_words: int = 20000,
    min_count: int = 5,
    epochs: int = 5,
    window: int = 5,
    seed: int = 0,
    limit: int | None = None,
) -> VectorsReport:
    """Train word2vec on the abstracts under ``data_dir`` and write the pruned table."""
    try:
        from gensim.models import Word2Vec
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InputError("training vectors needs gensim: pip install 'paperkg[train]'") from exc
    started = time.perf_counter()
    tokenizer = spacy.blank("en").tokenizer
    sentences = [
        [t.lower_ for t in doc if not t.is_space] for doc in tokenizer.pipe(_abstracts(Path(data_dir), limit), batch_size=500)
    ]
    model = Word2Vec(
        sentences=sentences, vector_size=dim, window=window, min_count=min_count, workers=1, seed=seed, epochs=epochs,
        sg=0, hashfxn=_stable_hash,
    )
    words = model.wv.index_to_key[:max_words]  # most frequent first
    table = numpy.asarray([model.wv[w] for w in words], dtype="float32")
    nlp = spacy.blank("en")
    nlp.vocab.vectors = spacy.vocab.Vectors(data=table, keys=[nlp.vocab.strings.add(w) for w in words], attr="LOWER")
    output_dir = Path(output_dir)
    output_dir.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output_dir)
    return VectorsReport(
        output_dir=output_dir,
        texts=len(sentences),
        tokens=sum(map(len, sentences)),
        words=len(words),
        dim=dim,
        seconds=time.perf_counter() - started,
    )
