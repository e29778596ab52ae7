"""Distant supervision: the teacher's spans are entities, never-entity words outside, the rest missing."""

from __future__ import annotations

import gzip
import json

import pytest
import spacy

from paperkg.errors import InputError
from paperkg.extract.learn.distant import distant_example, read_distant, unlabeled_abstracts


def test_a_partial_example_marks_only_what_it_knows():
    text = "We train SAC on MuJoCo and it is zero-shot."
    example = distant_example(spacy.blank("en"), text, [(9, 12, "METHOD"), (16, 22, "DATASET")])
    tags = {t.text: (t.ent_iob_, t.ent_type_) for t in example.reference}
    assert tags["SAC"] == ("B", "METHOD") and tags["MuJoCo"] == ("B", "DATASET")
    assert tags["We"] == tags["is"] == tags["zero"] == tags["shot"] == tags["."] == ("O", "")
    assert tags["train"] == tags["and"] == ("", "")  # missing: no loss either way


def test_a_bad_distant_line_is_named(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": "ab", "entities": []}) + "\n" + '{"text": "ab"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"d\.jsonl:2: not a distant record"):
        read_distant(path)
    path.write_text(json.dumps({"text": "ab", "entities": [{"start": 1, "end": 9, "label": "METHOD"}]}) + "\n")
    with pytest.raises(InputError, match=r"d\.jsonl:1: a span lies outside"):
        read_distant(path)


def test_an_abstract_that_is_gold_is_never_drawn(tmp_path):
    long = "x " * 150
    rows = [{"id": str(i), "abstract": f"{long} paper {i}"} for i in range(20)]
    path = tmp_path / "u.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    skip = {" ".join(f"{long} paper 3".split()).lower()}
    drawn = unlabeled_abstracts(path, 100, 0, skip)
    assert len(drawn) == 19 and "3" not in {i for i, _ in drawn}
    assert drawn == unlabeled_abstracts(path, 100, 0, skip)  # seeded
