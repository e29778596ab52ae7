"""Derive the shipped known lists under extract/data/ from ../shared/data.

Run from the repo root:  python scripts/build_gazetteer.py [../shared/data]

* ``pwc.tsv`` from the Papers-with-Code task lists (CC BY-SA 4.0): task names become
  case-insensitive Task entries, dataset names case-sensitive Dataset entries.
* ``known.tsv`` from the Papers with Code methods (``pwc_methods/methods.json``, CC BY-SA 4.0) and
  the CodeSOTA registry (``codesota/``: datasets, models, tasks, metrics; CC BY 4.0), one record
  per line with its type, canonical name, aliases, source, id (the PwC ``url`` slug or the
  CodeSOTA id), area and the URL of the archived record.

Names that are ordinary words in ML prose (measured on the corpus abstracts) are left out, since
a hit on "Open", "Focus", "BASE" or "Dropout" would be noise; so are PwC acronyms the corpus
defines another way more often ("SAC" is Soft Actor-Critic in ML abstracts, not PwC's
Switchable Atrous Convolution), paper titles used as names, and family words (CNN, LSTM).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

from paperkg.atomic import atomic_open

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
PWC_ARCHIVE = "https://web.archive.org/web/2025/"
CODESOTA_COMMIT = "a80e444045273820022d1a246558dbb583f5d263"
CODESOTA_RECORD = f"https://github.com/kwikiel/codesota.com/blob/{CODESOTA_COMMIT}/registry/{{file}}.json"
#: Family words and generic architectures: known, but no proper name to hang an id on.
FAMILY_NAMES = {"cnn", "rnn", "lstm", "mlp", "gan", "vae", "transformer", "autoencoder", "convolution", "attention",
                "diffusion", "linear layer", "softmax", "dropout", "pruning", "adam"}
PARENTHESES = re.compile(r"\s*\([^()]*\)")


def corpus_counts(data: Path) -> tuple[Counter, Counter]:
    """Word counts as written and lower-cased, over every corpus abstract."""
    cased, lower = Counter(), Counter()
    for path in sorted((data / "corpus").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for word in WORD.findall(json.loads(line)["abstract"]):
                cased[word] += 1
                lower[word.lower()] += 1
    return cased, lower


def corpus_definitions(data: Path) -> dict[str, Counter]:
    """Acronym -> Counter of the long-form keys the corpus abstracts define it with."""
    from paperkg.extract.nlp.abbreviations import find_abbreviations
    from paperkg.extract.nlp.normalize import normalize_key

    found: dict[str, Counter] = {}
    for path in sorted((data / "corpus").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(line)["abstract"]
            for abbr in find_abbreviations(text):
                short = normalize_key(abbr.short_form(text))
                found.setdefault(short, Counter())[normalize_key(abbr.long_form(text))] += 1
    return found


def ordinary_word(name: str, cased: Counter) -> bool:
    """A one-word name that ML abstracts mostly write in lower case: an ordinary word."""
    return len(name.split()) == 1 and name != name.lower() and cased[name.lower()] > cased[name]


def known_records(data: Path, cased: Counter) -> list[tuple[str, ...]]:
    """(type, name, aliases, source, id, area, record_url) rows from PwC methods and CodeSOTA."""
    from paperkg.extract.nlp.normalize import normalize_key
    from paperkg.extract.resolve.canonical import expands

    definitions = corpus_definitions(data)
    rows: list[tuple[str, ...]] = []
    methods = json.loads((data / "pwc_methods" / "methods.json").read_text(encoding="utf-8"))
    for method in sorted(methods, key=lambda m: (-m["num_papers"], m["url"])):
        name, full = method["name"].strip(), (method.get("full_name") or "").strip()
        if method["num_papers"] < 3 or ":" in full or len(name) < 3 or not NAME_OK.match(name):
            continue
        if ordinary_word(name, cased) or normalize_key(name) in FAMILY_NAMES:
            continue
        aliases = []
        if full and full != name and expands(name, full):
            # Corpus definitions that spell the acronym out fully and are no cut-off tail of the
            # PwC name ("policy optimization (PPO)") disagree with PwC: then the corpus wins.
            defined = Counter({long: n for long, n in definitions.get(normalize_key(name), Counter()).items()
                               if expands(name, long) and not normalize_key(full).endswith(long)})
            if sum(defined.values()) > definitions.get(normalize_key(name), Counter())[normalize_key(full)]:
                continue
            name, aliases = full, [name]
        area = "; ".join(sorted({c["area"] for c in method.get("collections") or [] if c.get("area")}))
        rows.append(("Method", name, "|".join(aliases), "pwc", method["url"].rstrip("/").rsplit("/", 1)[1], area,
                     PWC_ARCHIVE + method["url"]))
    registry = data / "codesota"
    areas = {a["id"]: a["name"] for a in json.loads((registry / "areas.json").read_text(encoding="utf-8"))}
    tasks = json.loads((registry / "tasks.json").read_text(encoding="utf-8"))
    task_area = {t["id"]: areas.get(t["area"], t["area"]) for t in tasks}
    for task in tasks:
        name = task["name"].strip()
        if len(name.split()) >= 2 and NAME_OK.match(name):
            rows.append(("Task", name.lower(), "", "codesota", f"tasks/{task['id']}", task_area[task["id"]],
                         CODESOTA_RECORD.format(file="tasks")))
    for dataset in json.loads((registry / "datasets.json").read_text(encoding="utf-8")):
        name = PARENTHESES.sub("", dataset["name"]).strip()
        if len(name) < 3 or not NAME_OK.match(name) or ordinary_word(name, cased) or name.lower() == name:
            continue
        full = PARENTHESES.sub("", dataset.get("fullName") or "").strip()
        full = re.sub(r"\s+(?:dataset|benchmark)$", "", full, flags=re.I)
        aliases = [full] if full and full != name and NAME_OK.match(full) and len(full.split()) <= 8 else []
        kind = "Benchmark" if re.search(r"bench(?:mark)?\b", name, re.I) else "Dataset"
        rows.append((kind, name, "|".join(aliases), "codesota", f"datasets/{dataset['id']}",
                     task_area.get(dataset.get("task"), ""), CODESOTA_RECORD.format(file="datasets")))
    for model in json.loads((registry / "models.json").read_text(encoding="utf-8")):
        name = model["name"].strip().rsplit("/", 1)[-1] if model["name"].count("/") == 1 else model["name"].strip()
        if not (3 <= len(name) <= 40 and NAME_OK.match(name) and len(name.split()) <= 3):
            continue
        if ordinary_word(name, cased) or normalize_key(name) in FAMILY_NAMES or name.lower() == name:
            continue
        rows.append(("Method", name, "", "codesota", f"models/{model['id']}", "",
                     CODESOTA_RECORD.format(file="models")))
    metrics = Counter()
    for dataset in json.loads((registry / "datasets.json").read_text(encoding="utf-8")):
        for metric in [*(dataset.get("metrics") or []), dataset.get("primaryMetric")]:
            if isinstance(metric, str) and len(metric) >= 2:
                metrics[metric.replace("-", " ") if metric.islower() else metric] += 1
    for metric, count in sorted(metrics.items()):
        if count >= 2 and NAME_OK.match(metric) and metric.lower() not in ("average", "composite", "pro", "pass"):
            rows.append(("Metric", metric, "", "codesota-metric", "", "", ""))
    # One record per name: the first source wins (PwC methods, then CodeSOTA tasks, datasets, models).
    seen: set[str] = set()
    unique = []
    for row in rows:
        key = normalize_key(row[1])
        if key and key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


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
    with atomic_open(out) as handle:
        handle.write("# Derived from Papers with Code task lists (CC BY-SA 4.0) by scripts/build_gazetteer.py\n")
        handle.write("# via World-Snapshot/papers-with-code @ c50b88eb13b179903ecf715bb941fef91bdb5414\n")
        for kind, name in sorted(set(rows)):
            handle.write(f"{kind}\t{name}\n")
    print(f"wrote {len(set(rows))} entries to {out}")
    known = known_records(data, cased)
    out = ROOT / "extract" / "data" / "known.tsv"
    with atomic_open(out) as handle:
        handle.write("# Known names: type, name, aliases (|), source, id, area, record URL. Built by scripts/build_gazetteer.py from\n")
        handle.write("# Papers with Code methods (CC BY-SA 4.0; kuefmz/pow_categories @ 8eb60c701cded586a140a6e175bfc1b1e5e6419c) and\n")
        handle.write(f"# Data from the CodeSOTA registry (https://www.codesota.com), CC BY 4.0 (kwikiel/codesota.com @ {CODESOTA_COMMIT})\n")
        for row in known:
            handle.write("\t".join(row) + "\n")
    print(f"wrote {len(known)} records to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data")
