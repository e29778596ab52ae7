"""Normalizers, abbreviations and cue rules: plain functions on strings."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from paperkg.extract.nlp.abbreviations import find_abbreviations
from paperkg.extract.nlp.markup import mask_markup
from paperkg.extract.nlp.normalize import (
    GENERIC_TAILS,
    americanize,
    generic_head,
    is_generic,
    normalize_key,
    trim_span,
    variant_key,
)
from paperkg.extract.nlp.rules import proposal_spans, role_for, type_from_head
from paperkg.extract.resolve.canonical import acronym_map

names = st.text(alphabet=string.ascii_letters + string.digits + " -_/'.", min_size=1, max_size=40)


@given(names)
@settings(max_examples=300, deadline=None)
def test_normalize_is_idempotent(name):
    once = normalize_key(name)
    assert normalize_key(once) == once


@given(names, st.sampled_from([str.upper, str.lower, str.title, str.swapcase]), st.sampled_from([" ", "  ", "\t", "\n "]))
@settings(max_examples=300, deadline=None)
def test_normalize_is_stable_under_case_and_whitespace(name, recase, space):
    noisy = space + recase(name).replace(" ", space) + space
    assert normalize_key(noisy) == normalize_key(name)


# Words with no "s", "i" or "u", so that appending "s" makes a plain plural.
words = st.text(alphabet="bcdfghjklmnprtvwxze", min_size=3, max_size=10).filter(lambda w: not is_generic(w))
phrases = st.lists(words, min_size=1, max_size=4)


@given(phrases, st.data())
@settings(max_examples=300, deadline=None)
def test_plural_on_any_word_unifies(parts, data):
    index = data.draw(st.integers(0, len(parts) - 1))
    plural = parts[:index] + [parts[index] + "s"] + parts[index + 1 :]
    assert normalize_key(" ".join(plural)) == normalize_key(" ".join(parts))


@given(phrases.filter(lambda ws: all(americanize(w) == w for w in ws)), st.sampled_from(["-", " ", ""]))
@settings(max_examples=300, deadline=None)
def test_hyphen_and_space_inside_words_unify(parts, joiner):
    # (British spellings are whole words: "bbbdefence" is none, so they are left out here.)
    assert variant_key(normalize_key(joiner.join(parts))) == variant_key(normalize_key(" ".join(parts)))


@given(phrases, st.sampled_from(sorted(GENERIC_TAILS)), st.sampled_from(["", "s"]))
@settings(max_examples=300, deadline=None)
def test_trailing_generic_head_folds_to_the_head(parts, tail, plural):
    key = normalize_key(" ".join(parts))
    assert generic_head(normalize_key(" ".join(parts) + " " + tail + plural)) == key


@given(phrases, words)
@settings(max_examples=200, deadline=None)
def test_a_modifier_keeps_concepts_apart(parts, modifier):
    name = " ".join(parts)
    assert variant_key(normalize_key(modifier + " " + name)) != variant_key(normalize_key(name))


@given(st.sampled_from([("optimisation", "optimization"), ("Modelling", "modeling"), ("behaviour", "behavior"),
                        ("regularised", "regularized"), ("labelled data", "labeled data"), ("centre", "center"),
                        ("generalisation", "generalization"), ("tokeniser", "tokenizer"), ("colour", "color")]),
       phrases)
@settings(max_examples=100, deadline=None)
def test_british_and_american_spellings_unify(pair, parts):
    british, american = pair
    rest = " ".join(parts)
    assert normalize_key(f"{rest} {british}") == normalize_key(f"{rest} {american}")


def test_markup_and_known_variants():
    assert normalize_key("M**etamorphic **Agg**regation") == normalize_key("Metamorphic Aggregation")
    assert variant_key(normalize_key("SD-XL")) == variant_key(normalize_key("SDXL"))
    assert variant_key(normalize_key("supervised finetuning")) == variant_key(normalize_key("supervised fine-tuning"))
    assert normalize_key("supervised learning") == "supervised learning"  # not "supervized"
    assert normalize_key("noise") == "noise"


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_masking_keeps_length(text):
    assert len(mask_markup(text)) == len(text)


def test_variants_unify_and_distinct_things_stay_apart():
    assert normalize_key("Atari 100K") == normalize_key("Atari-100k")
    assert normalize_key("Graph Neural Networks") == normalize_key("graph neural network")
    assert normalize_key("large-language models") == normalize_key("Large Language Model")
    assert normalize_key("latent diffusion model") != normalize_key("diffusion model")
    assert normalize_key("CIFAR-10") != normalize_key("CIFAR-100")


def test_generic_words_alone_are_generic():
    for word in ["method", "model", "framework", "approach", "network", "algorithm", "task", "dataset", "benchmark"]:
        assert is_generic(word) and is_generic(f"a novel {word}") and is_generic(f"the proposed {word}")
    assert not is_generic("diffusion model") and not is_generic("MuJoCo")


def test_trim_span_drops_articles_and_punctuation():
    text = "on the MuJoCo benchmark."
    start, end = trim_span(text, 3, 13)
    assert text[start:end] == "MuJoCo"


def test_abbreviations_both_directions():
    text = "We build on Soft Actor-Critic (SAC). We introduce EAGLE (Extrapolation Algorithm for Greater Language-model Efficiency)."
    pairs = {(a.long_form(text), a.short_form(text)) for a in find_abbreviations(text)}
    assert pairs == {("Soft Actor-Critic", "SAC"), ("Extrapolation Algorithm for Greater Language-model Efficiency", "EAGLE")}


def test_ambiguous_acronym_is_not_borrowed():
    mapping = acronym_map([("DP", "dynamic programming"), ("DP", "differential privacy"), ("SAC", "Soft Actor-Critic"),
                           ("SAC", "soft actor critic"), ("PPO", "Proximal Policy Optimization")])
    # defined one way in two abstracts: corpus-wide; in one abstract only: there only
    assert "dp" not in mapping and mapping["sac"] == "soft actor critic" and "ppo" not in mapping


def test_proposal_and_roles():
    sentence = "We propose FooNet, a network that uses ResNet-50 features."
    assert [sentence[a:b] for a, b in proposal_spans(sentence)] == ["FooNet"]
    assert role_for(sentence, sentence.index("ResNet"), sentence.index("ResNet") + 9) == "used"
    assert role_for("Transformers dominate language modeling.", 0, 12) == "mentioned"
    assert role_for("Our FooNet is fast.", 4, 10) == "proposed"


def test_types_from_head_words():
    assert type_from_head("ImageNet-C benchmark") == "Benchmark"
    assert type_from_head("the WikiBio dataset") == "Dataset"
    assert type_from_head("top-1 accuracy") == "Metric"
    assert type_from_head("success rate") == "Metric"
    assert type_from_head("semantic segmentation") == "Task"


@given(st.text(alphabet=" \t\n()ab", max_size=30))
@settings(max_examples=300, deadline=None)
def test_parentheticals_are_found_as_before_the_linear_pattern(text):
    import re

    from paperkg.extract.nlp.normalize import strip_parentheticals

    assert strip_parentheticals(text) == re.sub(r"\s*\([^()]*\)", "", text)


def test_normalize_key_is_linear_on_whitespace_runs():
    from growth import cpu_growth

    # Issue 21: "\s*" of the parenthetical pattern rescanned the rest of a whitespace run from
    # every position (80,000 spaces: 38 s; eight times the run took ~60 times as long).
    key = normalize_key.__wrapped__  # uncached: each call does the work
    ratio = cpu_growth(key, lambda n: "foo" + " " * n + "bar (x)", 5_000)
    assert ratio < 16, f"8x the run took {ratio:.1f}x the CPU"
