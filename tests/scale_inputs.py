"""Real-abstract inputs for the store, incremental and engine tests, cut from ../shared/data
into a test's tmp folder (abstracts are never copied into the repository)."""

from __future__ import annotations

import gzip
import json
from itertools import islice
from pathlib import Path


def write_subset(source: Path, target: Path, start: int, count: int) -> Path:
    """Records ``start .. start+count`` of a (gzipped) JSONL file, written to ``target``."""
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt", encoding="utf-8") as handle:
        lines = list(islice(handle, start, start + count))
    target.write_text("".join(line if line.endswith("\n") else line + "\n" for line in lines), encoding="utf-8")
    return target


def corpus_and_unlabeled(shared: Path, folder: Path, *, corpus: int, unlabeled: int, offset: int = 0) -> list[Path]:
    """A JSONL of ``corpus`` ICML 2024 records and one of ``unlabeled`` older abstracts."""
    return [
        write_subset(shared / "corpus" / "icml2024.jsonl", folder / f"corpus-{offset}.jsonl", offset, corpus),
        write_subset(shared / "unlabeled" / "abstracts.jsonl.gz", folder / f"unlabeled-{offset}.jsonl", offset, unlabeled),
    ]


def output_files(out: Path) -> dict[str, bytes]:
    """Every export in a build folder, by name (the hidden store and lock files left out)."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file() and not p.name.startswith(".")}


def first_record_ids(path: Path, count: int) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line)["id"] for line in islice(handle, count)]
