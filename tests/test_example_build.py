"""The example build of the README (command 1: ``paperkg build examples/abstracts.txt``) as the
docs and the pictures show it: its counts, the entities two papers share and its links. A
change to extraction, resolution or linking that moves them fails here, and then the README's
pictures (``python scripts/screenshots.py --only example``) are redrawn with the new counts."""

from __future__ import annotations

from pathlib import Path

import pytest

import paperkg

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def example():
    return paperkg.build([ROOT / "examples" / "abstracts.txt"], progress=False)


def test_the_example_counts(example):
    assert example.counts() == {
        "papers": 8, "entities": 54,
        "entities_by_type": {"Method": 31, "Dataset": 5, "Benchmark": 6, "Task": 9, "Metric": 3},
        "paper_entity_edges": 60, "paper_links": 5, "communities": 4}


def test_the_example_entities_and_links(example):
    g = example.graph
    papers = sorted(a["label"] for _, a in g.nodes(data=True) if a["kind"] == "Paper")
    assert papers == ["CEC", "FedAnchor", "FlashDenoise", "PairRank", "PatchMix", "RareMP", "StepWise", "TideRL"]
    shared = sorted((a["type"], a["name"]) for _, a in g.nodes(data=True)
                    if a["kind"] == "Entity" and a["paper_count"] >= 2)
    assert shared == [("Dataset", "CIFAR-10"), ("Dataset", "ImageNet"), ("Method", "large language model"),
                      ("Method", "soft actor-critic"), ("Metric", "accuracy")]
    links = sorted(tuple(sorted((g.nodes[u]["label"], g.nodes[v]["label"])))
                   for u, v, kind in g.edges(data="kind") if kind == "RELATED_TO")
    assert links == [("CEC", "TideRL"), ("FedAnchor", "FlashDenoise"), ("FlashDenoise", "PatchMix"),
                     ("PairRank", "StepWise"), ("PatchMix", "RareMP")]
    assert example.entity("SAC")["name"] == "soft actor-critic"
