"""Bounded work on hostile text (issue 21, HIGH 1 and 2): the tokenizer guard keeps every offset,
span nesting is one sorted pass equal to the pairwise definition, and the hostile inputs of the
red-team campaign give the same kind of output as before, now in bounded steps
(bench/bench_adversarial.py times the whole build)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from paperkg.extract.nlp.guard import MAX_RUN, split_punctuation_runs
from paperkg.extract.resolve.canonical import _inside_others
from paperkg.extract.run.corpus import nlp_items
from paperkg.types import Paper


def _pairwise_inside(spans):
    spans = set(spans)
    return {(s, e) for s, e in spans if any(a <= s and e <= b and (a, b) != (s, e) for a, b in spans)}


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)).map(lambda t: (t[0], t[0] + t[1])), max_size=40))
def test_inside_others_equals_the_pairwise_definition(spans):
    assert _inside_others(spans) == _pairwise_inside(spans)


@given(st.text(alphabet="(){}\"')]|.-a b", max_size=400))
def test_guard_keeps_length_and_non_punctuation(text):
    guarded = split_punctuation_runs(text)
    assert len(guarded) == len(text)
    assert all(g == c for g, c in zip(guarded, text) if g != " ")
    assert not re.search(r"[^\w\s]{%d,}" % (MAX_RUN + 1), guarded)


def test_guard_leaves_real_abstracts_alone(shared_data):
    from paperkg.extract.read.readers import read_papers

    papers = read_papers([shared_data / "corpus" / "icml2024.jsonl"]).papers[:500]
    assert all(split_punctuation_runs(p.abstract) == p.abstract for p in papers)


def test_hostile_runs_reach_the_tokenizer_in_short_chunks():
    hostile = Paper(id="h", abstract="(" * 9990 + "FooNet" + ")" * 9990)
    (text, _), = nlp_items([hostile], [0])
    assert len(text) == len(hostile.abstract) and "FooNet" in text
    # a chunk is at most a run piece, the name, and a run piece
    assert max(len(chunk) for chunk in text.split()) <= 2 * MAX_RUN + len("FooNet")


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 15)), max_size=30),
       st.lists(st.tuples(st.integers(0, 60), st.integers(1, 6)), max_size=30))
def test_numbers_outside_mentions_equal_the_pairwise_definition(span_pairs, number_pairs):
    # results/: one sorted pass instead of every number against every mention
    from paperkg.extract.results.cues import Span
    from paperkg.extract.results.extract import _outside_mentions
    from paperkg.extract.results.grammar import Number

    spans = sorted((Span(s, s + n, "Method", "k", "used") for s, n in span_pairs), key=lambda s: (s.start, s.end))
    numbers = sorted((Number(s, s + n, "1", 1.0, "absolute") for s, n in set(number_pairs)), key=lambda n: n.start)
    pairwise = [n for n in numbers if not any(s.start < n.end and n.start < s.end for s in spans)]
    assert _outside_mentions(numbers, spans) == pairwise
