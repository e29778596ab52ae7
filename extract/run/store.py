"""The extraction store: per-document NLP results on disk, in SQLite, re-used across builds.

A row holds what the spaCy stage produced for one paper (:class:`DocMentions`, as JSON) under
the key ``(paper id, sha256 of the abstract, extractor version)``. The extractor version hashes
everything that decides that output: the trained model's files, the gazetteer data, the source
of every per-document extraction module, spaCy's version and whether the model is used. So a
paper whose text and extractor are unchanged is never extracted twice, and any change that
could alter its mentions gives a new version (rows of other versions stay, unused, until the
file is deleted). Corpus-level resolution and linking are not stored: they re-run over the
whole store on every build.

>>> from paperkg.extract.nlp.records import DocMentions
>>> store = ExtractionStore(":memory:")
>>> doc = DocMentions(mentions=((0, 3, "Method", "used", "gazetteer", 0, 10, False),), abbreviations=())
>>> key = ("p1", text_hash("SAC works."))
>>> store.put("v1", [(key, doc, ())])
>>> store.existing([key, ("p2", "x")], "v1") == {key}, store.get([key], "v1") == [doc]
(True, True)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import sys
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from paperkg.errors import StoreError
from paperkg.extract.nlp.records import DocMentions
from paperkg.types import ENTITY_TYPES, ROLES

#: The store's file name inside a build's ``--out`` folder (hidden: it is not an export).
STORE_NAME = ".paperkg-store.sqlite"
SCHEMA_VERSION = 2
#: Rows per SQLite transaction and per read query: bounded memory, few commits.
BATCH = 500

_EXTRACT_DIR = Path(__file__).parent.parent
#: The per-document NLP is the ``nlp`` room (:mod:`paperkg.extract.nlp`): the source of every
#: module there (a new one included) is part of the extractor version; reading, resolution,
#: storing, evaluation and training run before or after it and are not.
_PER_DOCUMENT_ROOM = "nlp"

Key = tuple[str, str]
log = logging.getLogger("paperkg")
#: Damaged rows listed one by one; the rest are counted in one line.
_SHOWN = 5


def text_hash(abstract: str) -> str:
    """The sha256 of an abstract, as the store keys it."""
    return hashlib.sha256(abstract.encode("utf-8", "surrogatepass")).hexdigest()


#: Files of the model directory the per-document stage never reads.
AFTER_STORE = frozenset({"roles.json", "confidence.json"})


def extractor_version(use_model: bool) -> str:
    """A short hash of everything that decides the per-document output (see the module doc)."""
    from paperkg.extract.nlp.pipeline import MODEL_DIR

    return _extractor_version(use_model, str(MODEL_DIR))


@lru_cache(maxsize=4)
def _extractor_version(use_model: bool, model_dir: str) -> str:
    import spacy

    digest = hashlib.sha256(f"paperkg-extractor/{SCHEMA_VERSION}/spacy {spacy.__version__}/model {use_model}".encode())
    files = sorted((_EXTRACT_DIR / _PER_DOCUMENT_ROOM).glob("*.py"))
    files += sorted(p for p in (_EXTRACT_DIR / "data").rglob("*") if p.is_file())
    model = Path(model_dir)
    if use_model and model.is_dir():
        # The role and confidence models run after the store, over every paper of each build.
        files += sorted(p for p in model.rglob("*") if p.is_file() and p.name not in AFTER_STORE)
    for path in files:
        digest.update(str(path.relative_to(model if path.is_relative_to(model) else _EXTRACT_DIR)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _encode(doc: DocMentions) -> tuple[str, str]:
    return json.dumps(doc.mentions, separators=(",", ":")), json.dumps(doc.abbreviations, separators=(",", ":"))


def _decode(mentions: str, abbreviations: str) -> DocMentions:
    # JSON gives each "Method", "used", "model" its own string; a mention keeps its role and
    # origin, so one shared copy of each saves ~100 bytes per mention of a corpus.
    return DocMentions(
        mentions=tuple(tuple(sys.intern(v) if isinstance(v, str) else v for v in row) for row in json.loads(mentions)),
        abbreviations=tuple(tuple(row) for row in json.loads(abbreviations)),
    )


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _mention_ok(row) -> bool:
    return (isinstance(row, list) and len(row) == 8 and _int(row[0]) and _int(row[1]) and row[0] <= row[1]
            and row[2] in ENTITY_TYPES and row[3] in ROLES and isinstance(row[4], str) and _int(row[5])
            and _int(row[6]) and isinstance(row[7], bool))


def _row_problem(mentions, abbreviations, notes) -> str | None:
    """Why a stored row cannot be read back as :func:`_decode` expects, or None: a row edited
    or damaged on disk is extracted again rather than failing the build deep in resolution."""
    for name, text, ok in (("mentions", mentions, _mention_ok),
                           ("abbreviations", abbreviations, lambda r: isinstance(r, list) and len(r) == 4 and all(map(_int, r))),
                           ("notes", notes, lambda r: isinstance(r, str))):
        try:
            value = json.loads(text)
        except (TypeError, ValueError, RecursionError):  # not text, not JSON, not UTF-8
            return f"{name} is not JSON"
        if not isinstance(value, list) or not all(map(ok, value)):
            return f"{name} is not a list of {name} rows"
    return None


def _batches(items: Sequence, size: int = BATCH) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class ExtractionStore:
    """An SQLite file of per-document extraction results (``":memory:"`` for a throwaway one).

    Writes go in transactions of at most :data:`BATCH` rows; a killed build keeps every batch it
    committed, so the next build extracts only the rest.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = path if path == ":memory:" else Path(path)
        try:
            if self.path != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(str(self.path), timeout=60)
            self._pid = os.getpid()
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS docs (paper_id TEXT NOT NULL, text_hash TEXT NOT NULL, version TEXT NOT NULL,"
                " mentions TEXT NOT NULL, abbreviations TEXT NOT NULL, notes TEXT NOT NULL,"
                " PRIMARY KEY (version, paper_id, text_hash))"
            )
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            self._db.commit()
            (schema,) = self._db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{path}: not a usable paperkg extraction store ({exc}); delete it to start afresh") from exc
        if schema != str(SCHEMA_VERSION):
            raise StoreError(f"{path}: extraction store schema {schema}; this paperkg uses {SCHEMA_VERSION} (delete the file)")

    @property
    def _db(self) -> sqlite3.Connection:
        # SQLite forbids using a connection across fork(), closing it included: a forked process
        # (the corpus passes read their batches there) keeps the inherited one untouched and
        # opens its own, read-only. An in-memory store has no file to open; the child reads its
        # own copy of the database, which no other process touches.
        if self._pid != os.getpid() and self.path != ":memory:":
            self._inherited, self._connection = self._connection, sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
            self._pid = os.getpid()
        return self._connection

    def existing(self, keys: Sequence[Key], version: str) -> set[Key]:
        """The keys among ``keys`` that hold a readable result of ``version``; a damaged row
        (not JSON, rows of the wrong shape) is reported naming the store and left out, so the
        paper is extracted again and its row replaced."""
        found: set[Key] = set()
        damaged = 0
        with self._reading():
            for batch in _batches(keys):
                wanted = set(batch)
                ids = sorted({paper_id for paper_id, _ in batch})
                rows = self._db.execute(
                    "SELECT paper_id, text_hash, mentions, abbreviations, notes FROM docs"
                    f" WHERE version = ? AND paper_id IN ({','.join('?' * len(ids))})",
                    (version, *ids),
                )
                for paper_id, digest, *stored in rows:
                    if (paper_id, digest) not in wanted:
                        continue
                    problem = _row_problem(*stored)
                    if problem:
                        damaged += 1
                        if damaged <= _SHOWN:
                            log.warning(f"{self.path}: damaged row of paper {paper_id!r} ({problem}); extracting it again")
                        continue
                    found.add((paper_id, digest))
        if damaged > _SHOWN:
            log.warning(f"{self.path}: {damaged:,} damaged rows in all (the first {_SHOWN} are listed above); "
                        "their papers are extracted again")
        return found

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """SQLite errors of a read (a dropped table or column, a damaged file) as one line."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot read the extraction store ({exc}); delete it to start afresh") from exc

    def put(self, version: str, results: Iterable[tuple[Key, DocMentions, Sequence[str]]]) -> None:
        """Store results and their notes, one transaction per :data:`BATCH` rows."""
        rows = [(paper_id, digest, version, *_encode(doc), json.dumps(list(notes), ensure_ascii=False))
                for (paper_id, digest), doc, notes in results]
        try:
            for batch in _batches(rows):
                with self._db:
                    self._db.executemany("INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?)", batch)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot write the extraction store ({exc})") from exc

    def get(self, keys: Sequence[Key], version: str) -> list[DocMentions]:
        """The stored results for ``keys``, in that order (every key must be present)."""
        return list(self.iter(keys, version))

    def iter(self, keys: Sequence[Key], version: str) -> Iterator[DocMentions]:
        """Like :meth:`get`, reading :data:`BATCH` rows at a time."""
        for batch in _batches(keys):
            ids = sorted({paper_id for paper_id, _ in batch})
            with self._reading():
                rows = self._db.execute(
                    "SELECT paper_id, text_hash, mentions, abbreviations FROM docs"
                    f" WHERE version = ? AND paper_id IN ({','.join('?' * len(ids))})",
                    (version, *ids),
                ).fetchall()
            by_key = {(paper_id, digest): (mentions, abbrs) for paper_id, digest, mentions, abbrs in rows}
            for key in batch:
                if key not in by_key:
                    raise StoreError(f"{self.path}: no stored extraction for paper {key[0]!r} (version {version})")
                try:
                    yield _decode(*by_key[key])
                except (TypeError, ValueError, RecursionError) as exc:  # damaged after existing() checked it
                    raise StoreError(f"{self.path}: damaged row of paper {key[0]!r} ({exc}); delete the store "
                                     "or build again") from exc

    def notes(self, keys: Sequence[Key], version: str) -> list[tuple[int, list[str]]]:
        """``(position in keys, notes)`` for the keys whose extraction left notes."""
        where = {key: index for index, key in enumerate(keys)}
        with self._reading():
            rows = self._db.execute("SELECT paper_id, text_hash, notes FROM docs WHERE version = ? AND notes != '[]'",
                                    (version,)).fetchall()
        found = []
        for paper_id, digest, notes in rows:
            if (paper_id, digest) in where:
                try:
                    found.append((where[(paper_id, digest)], [str(note) for note in json.loads(notes)]))
                except (TypeError, ValueError, RecursionError) as exc:
                    raise StoreError(f"{self.path}: damaged notes of paper {paper_id!r} ({exc}); delete the store "
                                     "or build again") from exc
        return sorted(found)

    def close(self) -> None:
        self._db.close()


class StoredDocs(Sequence):
    """The stored results of ``keys`` as a read-only sequence that streams from the store,
    so corpus-level resolution never holds every document's rows at once."""

    def __init__(self, store: ExtractionStore, keys: Sequence[Key], version: str) -> None:
        self.store, self.keys, self.version = store, keys, version

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.store.get(self.keys[index], self.version)
        return self.store.get([self.keys[index]], self.version)[0]

    def __iter__(self) -> Iterator[DocMentions]:
        return self.store.iter(self.keys, self.version)
