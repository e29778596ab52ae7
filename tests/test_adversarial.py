"""Issue 11, H4: no input makes the rule stage super-linear.

The campaign found ``'x'*3000 + '(a b)'*10`` taking 13 s, ``'x'*10000 + '(a b)'*2000`` running for
hours and ``"foo (FN) " * 2222`` taking 103 s. These tests bound the algorithms' counted steps
(see paperkg.extract.nlp.budget), never the clock; ``bench/bench_adversarial.py`` prints the times.
"""

import logging
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paperkg.extract.nlp import budget
from paperkg.extract.nlp.abbreviations import find_abbreviations, find_short_forms
from paperkg.extract.nlp.budget import Steps
from paperkg.extract.nlp.pipeline import resolve_overlaps
from paperkg.extract.run.corpus import extract_papers
from paperkg.types import Paper

CAMPAIGN = {
    "long run, few parentheses": "x" * 3000 + "(a b)" * 10,
    "long run, many parentheses": "x" * 10000 + "(a b)" * 2000,
    "one short form defined 2222 times": "foo (FN) " * 2222,
}
#: Steps per character no text may exceed: each parenthesis looks back a bounded window.
ABBREVIATION_STEPS_PER_CHAR = 400
SHORT_FORM_STEPS_PER_CHAR = 15

PIECES = st.sampled_from([
    "x", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", " ", "  ", "(", ")", "(a b)", "(FN)", "FN", "FNs",
    "foo (FN) ", "Soft Actor-Critic (SAC)", "SAC", "(SAC; 2018)", "EAGLE (Extrapolation Algorithm for Greater Efficiency)",
    ", and ", ". ", "-", "s", "\n", "(((", ")))", "LLM-based", "A (B C D E F G H I J K L)",
])
ADVERSARIAL = st.lists(PIECES, max_size=400).map("".join) | st.text(alphabet="xs (),;.-FNA\n", max_size=3000)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_abbreviation_detection_is_linear(text):
    steps = Steps()
    found = find_abbreviations(text, steps)
    assert steps.count <= ABBREVIATION_STEPS_PER_CHAR * len(text) + 1
    shorts = {text[a.short_start : a.short_end] for a in found} | {"FN", "SAC", "LLMs"}
    steps = Steps()
    uses = list(find_short_forms(text, shorts, steps))
    assert steps.count <= SHORT_FORM_STEPS_PER_CHAR * len(text) + 1
    assert all(text[s:e].rstrip("s") == short.rstrip("s") for s, e, short in uses)


@pytest.mark.parametrize("name", CAMPAIGN)
def test_campaign_inputs_scale_linearly(name):
    """Doubling the input at most doubles the steps (plus a constant): no hidden quadratic term."""
    text = CAMPAIGN[name]

    def count(sample):
        steps = Steps()
        found = find_abbreviations(sample, steps)
        list(find_short_forms(sample, {sample[a.short_start : a.short_end] for a in found}, steps))
        return steps.count

    assert count(text + text) <= 2.1 * count(text) + 1000


@st.composite
def candidate_sets(draw):
    """Candidates as the pipeline makes them: disjoint model spans, rule spans anywhere, and
    known names that do not chain into one another."""
    n = draw(st.integers(10, 4000))
    candidates, cursor = [], 0
    while cursor < n:
        length = draw(st.integers(1, 40))
        gap = draw(st.integers(0, 30))
        if draw(st.booleans()):
            candidates.append((cursor, cursor + length, "Method", "model"))
        cursor += length + gap
    cursor = 0
    while cursor < n:
        length = draw(st.integers(1, 25))
        candidates.append((cursor, cursor + length, draw(st.sampled_from(["Method", "Task"])), "gazetteer"))
        cursor += length + draw(st.integers(0, 20))
    for _ in range(draw(st.integers(0, 300))):
        start = draw(st.integers(0, n))
        candidates.append((start, start + draw(st.integers(1, 60)), "Method", draw(st.sampled_from(["abbreviation", "proposal"]))))
    return candidates


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(candidate_sets())
def test_overlap_resolution_is_n_log_n(candidates):
    steps = Steps()
    resolved = resolve_overlaps(candidates, steps)
    m = len(candidates)
    assert steps.count <= 8 * m * max(1, math.log2(m)) + 100
    top = [r for r in resolved if not r[4]]
    assert all(a[1] <= b[0] for a, b in zip(top, top[1:])), "kept top-level spans overlap"


def test_overlap_resolution_ignores_input_order_and_hash_seed():
    """M2: the ranking key ignored ``origin``, so equal spans from two origins came out in set order."""
    candidates = [(0, 9, "Method", "abbreviation"), (0, 9, "Method", "proposal"), (20, 25, "Task", "gazetteer"),
                  (20, 25, "Task", "model"), (21, 24, "Task", "gazetteer"), (0, 9, "Task", "proposal")]
    first = resolve_overlaps(candidates)
    assert first == resolve_overlaps(list(reversed(candidates))) == resolve_overlaps(sorted(candidates))
    assert first[0] == (0, 9, "Method", "abbreviation", False)


def test_campaign_documents_stay_within_budget(caplog):
    papers = [Paper(id=name, abstract=text, source="campaign", line=i + 1) for i, (name, text) in enumerate(CAMPAIGN.items())]
    with caplog.at_level(logging.WARNING, logger="paperkg"):
        extractions = extract_papers(papers, use_model=False, progress=False)
    assert "skipped" not in caplog.text
    # every "FN" is found (the rules read "FN) foo" before the next "(FN)" as its long form, as before)
    assert sum(len(e.mentions) for e in extractions[2].entities) >= 2222


def test_over_budget_stage_is_skipped_and_reported(monkeypatch, caplog):
    monkeypatch.setattr(budget, "STEPS_PER_CHAR", 0)
    monkeypatch.setattr(budget, "STEPS_BASE", 50)
    paper = Paper(id="p", abstract="We train Soft Actor-Critic (SAC) agents; SAC wins. " * 5, source="in.jsonl", line=7)
    with caplog.at_level(logging.WARNING, logger="paperkg"):
        extract_papers([paper], use_model=False, progress=False)
    assert "in.jsonl:7: abbreviation detection skipped: over the budget of 50 steps" in caplog.text


def _naive_extend(candidates):
    """The definition, quadratic: widen each model span until no known name crosses its edges."""
    known = [(c[0], c[1]) for c in candidates if c[3] == "gazetteer"]
    out = []
    for start, end, kind, origin in candidates:
        changed = origin == "model"
        while changed:
            changed = False
            for k_start, k_end in known:
                if start < k_start < end < k_end or k_start < start < k_end < end:
                    start, end, changed = min(start, k_start), max(end, k_end), True
        out.append((start, end, kind, origin))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 15), st.sampled_from(["model", "gazetteer", "proposal"])), max_size=30))
def test_widening_matches_its_definition(spans):
    from paperkg.extract.nlp.pipeline import _extend_model_spans

    candidates = [(start, start + length, "Method", origin) for start, length, origin in spans]
    assert _extend_model_spans(candidates) == _naive_extend(candidates)
