"""What issue 18 found wrong in the ICML 2024 build, on real abstracts of ../shared/data/corpus:
non-entities by what they are, types by what a thing is, and released datasets and benchmarks
as proposals. The abstracts are picked by the words they contain, so the checks follow the
corpus, not a list of papers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paperkg.extract.nlp.filtering import is_non_entity

PICKS = {
    "modifier": re.compile(r"\b(?:zero-shot|out-of-distribution|self-supervised|few-shot|multi-agent)\b", re.I),
    "hardware": re.compile(r"\b(?:NVIDIA|GitHub|CPUs?|GPUs?)\b"),
    "latex": re.compile(r"\\[lc]dots"),
    "problem": re.compile(r"\b(?:TSP|CVRP)\b"),
    "model": re.compile(r"\bOPT\b"),
    "environment": re.compile(r"\b(?:CartPole|Humanoid)\b"),
    "release": re.compile(r"\bwe (?:introduce|present|release|propose) ([A-Z][\w\-]+), an? (?:new |novel |comprehensive |"
                          r"large-scale |challenging )*(dataset|benchmark)\b"),
    "url": re.compile(r"https?://github\.com/\S+"),
    "dubbed": re.compile(r"\b(?:dubbed|termed|named|called) ([A-Z][a-z]*[A-Z][\w\-]*)"),
}
PER_CLASS = 20


@pytest.fixture(scope="module")
def picked(shared_data: Path, use_model: bool):
    if not use_model:
        pytest.fail("the shipped model is missing")
    from paperkg.extract.read.readers import read_papers
    from paperkg.extract.run.corpus import extract_papers

    papers = read_papers(sorted((shared_data / "corpus").glob("*.jsonl"))).papers
    chosen: dict[str, list] = {name: [] for name in PICKS}
    for paper in papers:
        for name, pattern in PICKS.items():
            if len(chosen[name]) < PER_CLASS and pattern.search(paper.abstract):
                chosen[name].append(paper)
    unique = {p.id: p for group in chosen.values() for p in group}
    # Every entity, not only those over the default confidence cut: the rules decide these.
    extractions = {x.paper.id: x for x in extract_papers(list(unique.values()), progress=False, min_confidence=0.0)}
    return {name: [(p, extractions[p.id]) for p in group] for name, group in chosen.items()}


def _entities(pairs):
    return [e for _, x in pairs for e in x.entities]


@pytest.mark.parametrize("group", ["modifier", "hardware", "latex"])
def test_non_entities_never_become_entities(picked, group: str) -> None:
    assert len(picked[group]) >= 5
    wrong = sorted({e.name for e in _entities(picked[group]) if is_non_entity(e.name)})
    assert wrong == []


def test_no_mention_lies_inside_a_web_address(picked) -> None:
    """Repository and account names in a code link ("2024-ICML-TAC", "RethinkTinyLM") are no entities."""
    from paperkg.extract.nlp.filtering import outside_urls

    assert len(picked["url"]) >= 5
    inside = [(paper.abstract[m.start:m.end]) for paper, x in picked["url"] for e in x.entities for m in e.mentions
              if not outside_urls(paper.abstract, [(m.start, m.end)])]
    assert inside == []


def test_a_modified_noun_phrase_stays_an_entity(picked) -> None:
    """The modifier's noun phrase decides: "zero-shot" alone goes, "zero-shot classification" stays."""
    names = {e.name.lower() for e in _entities(picked["modifier"])}
    assert any(PICKS["modifier"].match(n) and " " in n for n in names), sorted(names)


def test_types_follow_what_a_thing_is(picked) -> None:
    problems = [e for e in _entities(picked["problem"]) if e.key in ("traveling salesman problem",
                                                                     "capacitated vehicle routing problem")]
    assert problems and all(e.type == "Task" for e in problems)
    models = [e for e in _entities(picked["model"]) if e.name == "OPT"]
    assert models and all(e.type == "Method" for e in models)
    environments = [e for e in _entities(picked["environment"]) if e.name in ("CartPole", "Humanoid")]
    assert environments and all(e.type == "Benchmark" for e in environments)


def test_released_datasets_and_benchmarks_are_proposed_with_their_type(picked) -> None:
    """"we introduce X, a new benchmark": X is proposed, and a Dataset or Benchmark."""
    found = right = 0
    for paper, extraction in picked["release"]:
        name = PICKS["release"].search(paper.abstract).group(1)
        entity = next((e for e in extraction.entities if name in {m.text for m in e.mentions}), None)
        if entity is None:
            continue
        found += 1
        right += entity.role == "proposed" and entity.type in ("Dataset", "Benchmark")
    assert found >= 10 and right / found >= 0.8, (right, found)


def test_coined_names_after_a_naming_cue_are_proposed(picked) -> None:
    found = proposed = 0
    for paper, extraction in picked["dubbed"]:
        name = PICKS["dubbed"].search(paper.abstract).group(1)
        entity = next((e for e in extraction.entities if name in {m.text for m in e.mentions}), None)
        if entity is not None:
            found += 1
            proposed += entity.role == "proposed"
    assert found >= 10 and proposed / found >= 0.8, (proposed, found)
