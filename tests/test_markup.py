"""Markup in names: clean names, offsets into the text as read (strings and real abstracts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperkg.extract.nlp.markup import clean_name, mask_markup


@pytest.mark.parametrize(
    ("surface", "name"),
    [
        ("M**etamorphic **Agg**regation", "Metamorphic Aggregation"),
        (r"$\infty$-Diff", "∞-Diff"),
        (r"$\textit{Dynamic Prompt Learning}$", "Dynamic Prompt Learning"),
        (r"\textbf{H}omogeneous \textbf{M}arkov \textbf{C}ontext", "Homogeneous Markov Context"),
        (r"$3 \mathrm{D}$ reconstruction", "3D reconstruction"),
        (r"DFO($\lambda$)", "DFO(λ)"),
        ("`FedBAT`", "FedBAT"),
        ("<b>FedBAT</b>", "FedBAT"),
        ("Soft Actor-Critic (SAC)", "Soft Actor-Critic (SAC)"),
    ],
)
def test_clean_name(surface: str, name: str) -> None:
    assert clean_name(surface) == name


@pytest.mark.parametrize(
    "text", [r"we propose $\infty$-Diff and $G$-CNNs", "**M**etamorphic", r"$x^2 + \alpha$ and \emph{Foo}", "a*b*c"]
)
def test_mask_keeps_length_and_plain_characters(text: str) -> None:
    masked = mask_markup(text)
    assert len(masked) == len(text)
    for raw, seen in zip(text, masked):
        assert seen == raw or seen == " " or not raw.isalnum() or raw in text[text.index("$") :] if "$" in text else True


def _find(corpus: Path, needle: str):
    from paperkg.extract.read.readers import read_papers

    papers = read_papers(sorted(corpus.glob("*.jsonl"))).papers
    return [p for p in papers if needle in p.abstract]


def test_real_abstracts_give_clean_names_and_raw_offsets(shared_data: Path) -> None:
    from paperkg.extract.run.corpus import extract_papers

    corpus = shared_data / "corpus"
    papers = _find(corpus, "**M**etamorphic **Agg**regation") + _find(corpus, r"introduces $\infty$-Diff")
    assert len(papers) == 2
    extractions = extract_papers(papers, progress=False)
    for extraction in extractions:
        for entity in extraction.entities:
            assert not any(c in entity.name for c in "*$\\`"), entity.name
            for mention in entity.mentions:
                assert extraction.paper.abstract[mention.start : mention.end] == mention.text
    names = {e.name for x in extractions for e in x.entities}
    assert "Metamorphic Aggregation" in names
    assert "∞-Diff" in names


def test_math_stops_at_the_next_opener() -> None:
    # An unclosed "\(" no longer spans every later "\(" up to a closer far away: the scan from
    # each opener ends at the next one, which keeps mask_markup linear on runs of openers.
    from paperkg.extract.nlp.markup import _MATH

    assert [m.group() for m in _MATH.finditer(r"\(a \(b\) and \[c \[d\]")] == [r"\(b\)", r"\[d\]"]


@pytest.mark.parametrize("unit", ["\\(", "\\[", "\\(a ", "\\[a "])
def test_mask_markup_is_linear_on_runs_of_openers(unit: str) -> None:
    from growth import cpu_growth

    # Issue 21 M11: the old pattern scanned from each "\(" to the end (6.2 s at 40k characters);
    # eight times the text took 60 times as long. Linear work takes about 8 times as long.
    ratio = cpu_growth(mask_markup, lambda n: unit * (n // len(unit)), 5_000)
    assert ratio < 16, f"8x the text took {ratio:.1f}x the CPU"
