"""Derive extract/data/pwc.tsv from the Papers-with-Code task lists (CC BY-SA 4.0).

Run from the repo root:  python scripts/build_gazetteer.py [../shared/data]

Task names become case-insensitive Task entries; dataset names become case-sensitive Dataset
entries. Names that are ordinary words in ML prose (measured on the corpus abstracts) are left
out, since a gazetteer hit on "Open" or "Binary" would be noise.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPLIT_SUFFIX = re.compile(r"\s+(?:val|test|dev|train|test-dev|test-std|test-standard|validation|testfinal)$", re.I)
NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 .\-+&']*[A-Za-z0-9+]$")
# A PwC task name is kept only when its head says "task": "general knowledge" is no task.
TASK_HEADS = set(
    "detection classification segmentation generation recognition prediction forecasting estimation "
    "translation answering retrieval summarization reasoning planning control localization tracking "
    "synthesis completion captioning parsing recommendation identification discovery imputation "
    "reconstruction extraction understanding navigation manipulation editing matching verification "
    "learning optimization modeling modelling adaptation attack attacks defense search labeling "
    "tagging linking resolution grounding restoration enhancement denoising inpainting transfer "
    "compression clustering ranking inference".split()
)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")


def corpus_counts(data: Path) -> tuple[Counter, Counter]:
    """Word counts as written and lower-cased, over every corpus abstract."""
    cased, lower = Counter(), Counter()
    for path in sorted((data / "corpus").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for word in WORD.findall(json.loads(line)["abstract"]):
                cased[word] += 1
                lower[word.lower()] += 1
    return cased, lower


def main(data: Path) -> None:
    source = data / "pwc_gazetteer"
    cased, lower = corpus_counts(data)
    tasks: set[str] = set()
    datasets: set[str] = set()
    for line in (source / "all_tasks.txt").read_text(encoding="utf-8").splitlines():
        tasks.add(line.strip().strip('"'))
    for name in ("cv", "nlp", "audio", "other"):
        with open(source / f"{name}_tasks_detailed.csv", encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                tasks.add(row["Task Name"].strip())
                for column in ("Common Datasets (Top 10)", "Benchmarks"):
                    for item in row[column].split(";"):
                        datasets.add(SPLIT_SUFFIX.sub("", item.strip()))
    rows = []
    for task in sorted(tasks):
        words = task.split()
        if 2 <= len(words) <= 6 and NAME_OK.match(task) and not task[0].isdigit() and words[-1].lower() in TASK_HEADS:
            rows.append(("Task", task.lower()))
    for name in sorted(datasets):
        words = name.split()
        if not (3 <= len(name) <= 40 and len(words) <= 4 and NAME_OK.match(name)):
            continue
        if not any(c.isupper() for c in name) or not any(c.isalpha() for c in name):
            continue
        if len(words) == 1 and lower[name.lower()] > 2 * cased[name] + 1:
            continue  # an ordinary word in ML abstracts, not a dataset name
        if len(words) > 1 and name.lower() == name:
            continue
        rows.append(("Dataset", name))
    out = ROOT / "extract" / "data" / "pwc.tsv"
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("# Derived from Papers with Code task lists (CC BY-SA 4.0) by scripts/build_gazetteer.py\n")
        handle.write("# via World-Snapshot/papers-with-code @ c50b88eb13b179903ecf715bb941fef91bdb5414\n")
        for kind, name in sorted(set(rows)):
            handle.write(f"{kind}\t{name}\n")
    print(f"wrote {len(set(rows))} entries to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data")
