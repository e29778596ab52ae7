"""The resolution passes' tallies (paperkg.extract.resolve.tallies): batches added in order give
what one pass over every paper gives, so the passes can run in forked processes."""

from __future__ import annotations

from collections import Counter

from paperkg.extract.nlp.records import DocMentions
from paperkg.extract.resolve import canonical
from paperkg.extract.resolve.canonical import resolve_stream
from paperkg.extract.resolve.tallies import MAX_EVIDENCE, DefinitionPass, KeyTallies, Names
from paperkg.types import Paper


def _doc(text: str, *names: str, abbreviations=()) -> DocMentions:
    rows = [(text.index(n), text.index(n) + len(n), "Method", "used", "model", 0, len(text), False) for n in names]
    return DocMentions(mentions=tuple(rows), abbreviations=tuple(abbreviations))


def test_evidence_notes_add_up_to_the_first_distinct_ones_in_paper_order():
    first = KeyTallies(key_evidence={("sac", "soft actor critic"): ["p1", "p2"]})
    first.add(KeyTallies(key_evidence={("sac", "soft actor critic"): ["p2", "p3", "p4"], ("a", "b"): ["p5"]}))
    assert first.key_evidence == {("sac", "soft actor critic"): ["p1", "p2", "p3"][:MAX_EVIDENCE], ("a", "b"): ["p5"]}


def test_counters_add_in_the_order_keys_first_came_in():
    total = KeyTallies(key_forms=Counter({("b", "b", "B"): 1}))
    total.add(KeyTallies(key_forms=Counter({("a", "a", "A"): 2, ("b", "b", "B"): 1})))
    assert list(total.key_forms.items()) == [(("b", "b", "B"), 2), (("a", "a", "A"), 2)]


def test_the_first_pass_hands_every_name_it_made_to_the_second():
    text = "We train Soft Actor-Critic (SAC) and PPO on Atari."
    papers = [Paper("p", text)]
    doc = _doc(text, "Soft Actor-Critic", "SAC", "PPO", "Atari",
               abbreviations=[(text.index("Soft"), text.index(" (SAC)"), text.index("SAC"), text.index("SAC") + 3)])
    names = Names()
    found = DefinitionPass(papers, names)([(0, doc)])
    assert found.definitions == [("SAC", "Soft Actor-Critic", 0)]
    assert set(found.names) == {"Soft Actor-Critic", "SAC", "PPO", "Atari"}
    assert found.names["Soft Actor-Critic"] == ("Soft Actor-Critic", "soft actor critic")
    assert names.taken() == {}  # handed over once


def test_resolution_in_one_batch_per_paper_equals_one_pass(monkeypatch):
    texts = ["We propose Soft Actor-Critic (SAC) for control.", "SAC and PPO are compared on MuJoCo.",
             "Proximal Policy Optimization (PPO) trains agents.", "We study SAC on Atari and MuJoCo tasks."]
    names = [("Soft Actor-Critic", "SAC"), ("SAC", "PPO", "MuJoCo"), ("Proximal Policy Optimization", "PPO"),
             ("SAC", "Atari", "MuJoCo")]
    papers = [Paper(f"p{i}", t) for i, t in enumerate(texts)]
    docs = []
    for text, found in zip(texts, names):
        abbreviations = []
        if "(" in text:
            short = text[text.index("(") + 1 : text.index(")")]
            abbreviations = [(text.index(found[0]), text.index(" ("), text.index(short), text.index(short) + len(short))]
        docs.append(_doc(text, *found, abbreviations=abbreviations))
    one = resolve_stream(papers, docs)
    monkeypatch.setattr(canonical, "PASS_BATCH", 1)
    batched = resolve_stream(papers, docs, processes=2)
    records = list(batched.extractions)
    assert records == list(one.extractions) and batched.report == one.report
    keys = {e.key for x in records for e in x.entities}
    assert "soft actor critic" in keys and "sac" not in keys
