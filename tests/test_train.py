"""Smoke test of paperkg.extract.learn.train: a few training steps on tiny hand-written gold files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperkg.errors import EvaluationError, InputError

spacy = pytest.importorskip("spacy")

from paperkg.extract.learn.examples import make_example  # noqa: E402
from paperkg.extract.learn.train import TrainReport, train_model  # noqa: E402

FULL = [  # SciERC-like: every label, plus OTHER and one nested pair
    ("We propose a graph neural network for node classification on Cora and report accuracy.",
     [("graph neural network", "METHOD"), ("neural network", "METHOD"),
      ("node classification", "TASK"), ("Cora", "DATASET"), ("accuracy", "METRIC")]),
    ("A recurrent model with attention improves machine translation on WMT in BLEU.",
     [("recurrent model", "METHOD"), ("attention", "OTHER"), ("machine translation", "TASK"),
      ("WMT", "DATASET"), ("BLEU", "METRIC")]),
]
PARTIAL = [  # CS-NER-like: METHOD and TASK only
    ("Support vector machines are applied to text categorization of Reuters news.",
     [("Support vector machines", "METHOD"), ("text categorization", "TASK")]),
]


def gold_line(i: int, text: str, spans: list[tuple[str, str]]) -> str:
    entities = []
    for phrase, label in spans:
        start = text.index(phrase)
        entities.append({"start": start, "end": start + len(phrase), "label": label,
                         "orig_label": label, "text": phrase})
    entities.sort(key=lambda e: (e["start"], e["end"]))
    return json.dumps({"id": f"d{i}", "text": text, "entities": entities})


#: The span-file settings these tests were written for (the shipped config trains on
#: paperkg_train.jsonl with in-domain vectors; see test_paper_level_gold_and_vectors).
SPAN_FILES = {
    "paperkg.train_files": ["scierc_train.jsonl", "csner-ftd_train.jsonl"],
    "paperkg.dev_files": ["scierc_dev.jsonl", "csner-ftd_dev.jsonl"],
    "paperkg.select_files": [],
    "paperkg.train_repeat": [],
    "components.ner.model.tok2vec.embed.include_static_vectors": False,
}


@pytest.fixture()
def gold_dir(tmp_path: Path) -> Path:
    root = tmp_path / "gold"
    root.mkdir()
    for name, docs in (("scierc", FULL), ("csner-ftd", PARTIAL)):
        for split in ("train", "dev"):
            lines = [gold_line(i, t, s) for i, (t, s) in enumerate(docs * 3)]
            (root / f"{name}_{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("mode", ["missing", "outside"])
def test_train_model_smoke(gold_dir: Path, tmp_path: Path, mode: str) -> None:
    out = tmp_path / "model"
    report = train_model(
        gold_dir,
        out,
        seed=1,
        max_steps=12,
        overrides={
            **SPAN_FILES,
            "training.eval_frequency": 4,
            "paperkg.teacher_steps": 4,
            "paperkg.csner_unannotated": mode,
            "paperkg.train_other": mode == "missing",
            "paperkg.pretrain_epochs": 0,
        },
        progress=False,
    )
    assert isinstance(report, TrainReport)
    assert report.output_dir == out and report.steps <= 12 and report.size_bytes > 0
    assert [d.file for d in report.dev] == ["scierc_dev.jsonl", "csner-ftd_dev.jsonl"]
    expected = {"METHOD", "TASK", "DATASET", "METRIC"} | ({"OTHER"} if mode == "missing" else set())
    assert set(report.labels) == expected
    nlp = spacy.load(out)
    assert set(nlp.get_pipe("ner").labels) == set(report.labels)
    # self-contained: sourceable into a blank English pipeline and runnable there
    host = spacy.blank("en")
    host.add_pipe("ner", source=nlp)
    host("A small text about transformers for summarization.")
    json.dumps(report.to_dict())


def test_a_model_with_vectors_names_no_folder_of_the_training_machine(gold_dir: Path, tmp_path: Path) -> None:
    """The vectors are copied into the model; its config.cfg must not name where they came from."""
    import numpy

    vectors = spacy.blank("en")
    for i, word in enumerate(("method", "dataset", "transformers", "summarization")):
        vectors.vocab.set_vector(word, numpy.full(8, float(i + 1), dtype="float32"))
    vectors.to_disk(tmp_path / "vectors")
    out = tmp_path / "model"
    overrides = {**SPAN_FILES, "components.ner.model.tok2vec.embed.include_static_vectors": True,
                 "paths.vectors": str(tmp_path / "vectors"), "training.eval_frequency": 4,
                 "paperkg.teacher_steps": 4, "paperkg.pretrain_epochs": 0}
    train_model(gold_dir, out, seed=1, max_steps=4, overrides=overrides, progress=False)
    config = (out / "config.cfg").read_text(encoding="utf-8")
    assert str(tmp_path) not in config
    assert spacy.load(out).vocab.vectors.n_keys == 4  # and the model holds them


def test_nested_spans_keep_the_longer_one() -> None:
    from paperkg.extract.read.gold import GoldDoc, GoldEntity

    text, spans = FULL[0]
    ents = []
    for phrase, label in spans:
        start = text.index(phrase)
        ents.append(GoldEntity(start, start + len(phrase), label, phrase))
    example = make_example(spacy.blank("en"), GoldDoc("x", text, tuple(ents)),
                           ["METHOD", "TASK", "DATASET", "METRIC"])
    got = [(e.text, e.label_) for e in example.reference.ents]
    assert ("graph neural network", "METHOD") in got and ("neural network", "METHOD") not in got


def test_missing_gold_and_malformed_lines(gold_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        train_model(tmp_path / "nowhere", tmp_path / "m", progress=False)
    bad = gold_dir / "scierc_train.jsonl"
    bad.write_text(bad.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    with pytest.raises(EvaluationError, match=r"scierc_train\.jsonl:7:"):
        train_model(gold_dir, tmp_path / "m", max_steps=2, progress=False, overrides=SPAN_FILES)


def test_refuses_to_overwrite_a_non_model_directory(gold_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="refusing to overwrite"):
        train_model(gold_dir, out, max_steps=2, progress=False,
                    overrides={**SPAN_FILES, "paperkg.csner_unannotated": "outside",
                               "paperkg.pretrain_epochs": 0})
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_pretraining_option_runs(gold_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tiny.jsonl").write_text(
        "".join(json.dumps({"id": str(i), "abstract": t}) + "\n" for i, (t, _) in enumerate(FULL)),
        encoding="utf-8",
    )
    report = train_model(
        gold_dir, tmp_path / "model", max_steps=4, corpus_dir=corpus, progress=False,
        overrides={**SPAN_FILES, "paperkg.pretrain_epochs": 1, "paperkg.pretrain_files": ["tiny.jsonl"],
                   "paperkg.csner_unannotated": "outside", "training.eval_frequency": 2},
    )
    assert report.steps <= 4 and (tmp_path / "model" / "meta.json").is_file()


def test_paper_level_gold_and_vectors(tmp_path: Path) -> None:
    """The shipped settings on tiny data: paper-level gold, word2vec vectors built from the
    unlabelled abstracts beside the gold folder, a role model written next to the NER."""
    pytest.importorskip("gensim")
    data = tmp_path / "data"
    gold = data / "gold"
    gold.mkdir(parents=True)
    (data / "unlabeled").mkdir()
    (data / "corpus").mkdir()
    records = []
    for i, (text, spans) in enumerate(FULL * 3):
        entities = []
        for phrase, label in spans:
            if label == "OTHER" or phrase == "neural network":
                continue
            start = text.index(phrase)
            entities.append({"name": phrase, "type": label.title(), "role": "proposed" if i == 0 else "used",
                             "core": True, "mentions": [{"start": start, "end": start + len(phrase), "text": phrase}]})
        records.append(json.dumps({"id": f"p{i}", "title": "T", "abstract": text, "entities": entities}))
    for split in ("train", "dev"):
        (gold / f"paperkg_{split}.jsonl").write_text("\n".join(records) + "\n", encoding="utf-8")
        (gold / f"scierc_{split}.jsonl").write_text(
            "\n".join(gold_line(i, t, s) for i, (t, s) in enumerate(FULL)) + "\n", encoding="utf-8")
    import gzip

    with gzip.open(data / "unlabeled" / "abstracts.jsonl.gz", "wt", encoding="utf-8") as handle:
        for i, (text, _) in enumerate(FULL * 20):
            handle.write(json.dumps({"id": str(i), "abstract": text}) + "\n")
    out = tmp_path / "model"
    report = train_model(gold, out, max_steps=4, progress=False,
                         overrides={"training.eval_frequency": 2, "paperkg.vectors_words": 50,
                                    "paperkg.vectors_epochs": 1})
    assert (out / "roles.json").is_file() and (out / "confidence.json").is_file()  # fitted out of fold
    nlp = spacy.load(out)
    assert nlp.vocab.vectors.shape[1] == 64 and 0 < nlp.vocab.vectors.shape[0] <= 50
    assert report.dev[0].file == "paperkg_dev.jsonl"
