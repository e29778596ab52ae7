"""Paper-level scoring (paperkg_dev.jsonl format): every definition of gold/README.md is pinned
by a small case whose numbers change when the rule breaks, plus the real dev file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperkg.cli import cli
from paperkg.errors import EvaluationError
from paperkg.extract.evaluate.papers import format_paper_report, score_papers
from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.read.gold import GoldPaper, GoldPaperEntity, is_paper_level, read_paper_gold
from paperkg.types import Extraction, Mention, Paper, PaperEntity

TEXT = "We propose FooNet, built on Soft Actor-Critic (SAC), for robot manipulation on MuJoCo."


def span(text: str, phrase: str) -> tuple[int, int]:
    start = text.index(phrase)
    return start, start + len(phrase)


def gold_entity(text, name, type_, role="used", core=True, phrases=None, alt=None, aliases=()):
    return GoldPaperEntity(
        name=name, type=type_, role=role, core=core, alt_type=alt, aliases=tuple(aliases),
        mentions=tuple(span(text, p) for p in (phrases or [name])),
    )


def pred(text, name, type_, role="used", phrases=None, key=None):
    mentions = tuple(
        Mention(start=s, end=e, text=text[s:e], type=type_, key=key or normalize_key(name), role=role, sentence=text)
        for s, e in (span(text, p) for p in (phrases or [name]))
    )
    return PaperEntity(key=key or normalize_key(name), name=name, type=type_, role=role, mentions=mentions, evidence=text)


def paper(text, pid="p1"):
    return Paper(id=pid, abstract=text)


GOLD = GoldPaper(
    paper=paper(TEXT),
    entities=(
        gold_entity(TEXT, "FooNet", "Method", role="proposed"),
        gold_entity(TEXT, "Soft Actor-Critic", "Method", phrases=["Soft Actor-Critic", "SAC"], aliases=["SAC"]),
        gold_entity(TEXT, "robot manipulation", "Task", alt="Method"),
        gold_entity(TEXT, "MuJoCo", "Benchmark", core=False),
    ),
)


def test_perfect_prediction_scores_one():
    ents = tuple(
        pred(TEXT, g.name, g.type, g.role, phrases=[TEXT[s:e] for s, e in g.mentions]) for g in GOLD.entities
    )
    report = score_papers([GOLD], [Extraction(paper=GOLD.paper, label="", entities=ents)])
    assert report.core_recall.value == report.precision.value == report.type_accuracy.value == 1.0
    assert report.proposed_f1 == 1.0
    assert report.mention_micro.f1 == 1.0
    assert not report.false_positives and not report.misses


def test_acronym_alias_type_and_role_rules():
    ents = (
        pred(TEXT, "FooNet", "Method", "used"),  # found, but not as proposed
        pred(TEXT, "SAC", "Method"),  # the acronym alone matches the long-form entity
        pred(TEXT, "robot manipulation", "Method"),  # the alt_type is right too
        pred(TEXT, "MuJoCo", "Dataset", "proposed"),  # wrong type, wrongly proposed
        pred(TEXT, "built", "Method"),  # spurious
    )
    report = score_papers([GOLD], [Extraction(paper=GOLD.paper, label="", entities=ents)])
    assert (report.core_recall.hits, report.core_recall.total) == (3, 3)
    assert (report.precision.hits, report.precision.total) == (4, 5)
    assert (report.type_accuracy.hits, report.type_accuracy.total) == (3, 4)
    assert (report.proposed_precision.hits, report.proposed_precision.total) == (0, 1)
    assert (report.proposed_recall.hits, report.proposed_recall.total) == (0, 1)
    assert dict(report.false_positives)["spurious"][0].text == "built"
    # mention level: "SAC" exact; "robot manipulation" counts under Task through alt_type; MuJoCo has the wrong type
    by_type = {s.label: s for s in report.mention_scores}
    assert by_type["Task"].tp == 1 and by_type["Benchmark"].fn == 1 and by_type["Dataset"].fp == 1


def test_missed_and_cut_entities_are_grouped():
    ents = (pred(TEXT, "Soft Actor", "Method"),)
    report = score_papers([GOLD], [Extraction(paper=GOLD.paper, label="", entities=ents)])
    assert report.core_recall.hits == 0
    misses = dict(report.misses)
    assert [e.text for e in misses["partly found"]] == ["Soft Actor-Critic"]
    assert {e.text for e in misses["not found"]} == {"FooNet", "robot manipulation"}
    assert dict(report.false_positives)["boundary"][0].text == "Soft Actor"


def test_link_precision_counts_pairs_sharing_a_predicted_key():
    texts = ["Alpha uses MuJoCo.", "Beta uses MuJoCo.", "Gamma uses ImageNet."]
    golds = [
        GoldPaper(paper=paper(t, str(i)), entities=(gold_entity(t, t.split()[2].rstrip("."), "Dataset"),))
        for i, t in enumerate(texts)
    ]
    # paper 2 shares a predicted key "uses" with both others: 3 predicted pairs, gold links one
    preds = [
        Extraction(paper=g.paper, label="", entities=(pred(t, t.split()[2].rstrip("."), "Dataset"), pred(t, "uses", "Method")))
        for g, t in zip(golds, texts)
    ]
    report = score_papers(golds, preds)
    assert (report.link_precision.hits, report.link_precision.total) == (1, 3)
    assert (report.link_recall.hits, report.link_recall.total) == (1, 1)


def test_reader_checks_offsets_and_detects_the_format(tmp_path: Path):
    good = {"id": "a", "abstract": TEXT, "entities": [
        {"name": "FooNet", "type": "Method", "role": "proposed", "core": True,
         "mentions": [{"start": 11, "end": 17, "text": "FooNet"}]}]}
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(good) + "\n")
    assert is_paper_level(path)
    assert read_paper_gold(path)[0].entities[0].mentions == ((11, 17),)
    good["entities"][0]["mentions"][0]["start"] = 12
    path.write_text(json.dumps(good) + "\n")
    with pytest.raises(EvaluationError, match=r"g.jsonl:1: .*abstract\[12:17\]"):
        read_paper_gold(path)
    span_file = tmp_path / "s.jsonl"
    span_file.write_text(json.dumps({"id": "x", "text": "abc", "entities": []}) + "\n")
    assert not is_paper_level(span_file)


def test_real_dev_gold_scored_against_itself(shared_data: Path):
    gold = read_paper_gold(shared_data / "gold" / "paperkg_dev.jsonl")
    assert gold and all(g.entities for g in gold)
    preds = []
    for g in gold:
        text = g.paper.abstract
        ents = tuple(
            PaperEntity(
                key=normalize_key(e.name), name=e.name, type=e.type, role=e.role, evidence="",
                mentions=tuple(
                    Mention(start=s, end=t, text=text[s:t], type=e.type, key=normalize_key(e.name), role=e.role, sentence="")
                    for s, t in e.mentions
                ),
            )
            for e in g.entities
        )
        preds.append(Extraction(paper=g.paper, label="", entities=ents))
    report = score_papers(gold, preds)
    assert report.core_recall.value == report.precision.value == 1.0
    assert report.proposed_f1 == report.type_accuracy.value == report.link_precision.value == 1.0
    assert report.mention_micro.f1 == 1.0
    assert "core recall" in format_paper_report(report)


def test_cli_evaluates_paper_level_dev(shared_data: Path):
    result = CliRunner().invoke(cli, ["evaluate", str(shared_data / "gold" / "paperkg_dev.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["n_papers"] == len(read_paper_gold(shared_data / "gold" / "paperkg_dev.jsonl"))
    assert 0.3 < data["paper_level"]["core_recall"]["value"] <= 1.0
    assert set(data["mention_level"]["per_type"]) == {"Method", "Dataset", "Benchmark", "Task", "Metric"}
