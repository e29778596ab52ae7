"""Extraction on the 57 real seed abstracts (../shared/data/seeds)."""

import re

import pytest

from paperkg.extract.nlp.normalize import GENERIC_HEADS

# The issue names these as the papers' own new methods.
NEW_METHODS = ["HarmonyDream", "EE-LLM", "TDPO", "LESR", "FedBAT", "RVI-SAC", "SBMI", "AbX", "OpenMoE"]

# Entity name -> how a reader spots it in an abstract (distinct concepts excluded).
SHARED_ENTITIES = {
    "MuJoCo": r"\bmujoco\b",
    "Atari 100K": r"\batari[ -]100k\b",
    "large language model": r"\blarge language models?\b|\bLLMs?\b",
    "diffusion model": r"(?<!latent )(?<!stochastic )\bdiffusion models?\b",
    "reinforcement learning": r"(?<!deep )(?<!based )(?<!inverse )(?<!offline )\breinforcement learning\b",
}


def entity_with_text(extraction, text):
    return [e for e in extraction.entities if any(m.text == text for m in e.mentions) or e.name == text]


@pytest.mark.parametrize("name", NEW_METHODS)
def test_named_new_method_is_proposed(seeds_result, name):
    papers = [x for x in seeds_result.extractions if re.search(rf"\b{re.escape(name)}\b", x.paper.abstract)]
    assert papers, f"{name} is in no seed abstract"
    for extraction in papers:
        found = entity_with_text(extraction, name)
        assert found, f"{name} not extracted from paper {extraction.paper.id}"
        assert any(e.role == "proposed" and e.type == "Method" for e in found), [(e.name, e.type, e.role) for e in found]


@pytest.mark.parametrize("name", sorted(SHARED_ENTITIES))
def test_shared_entity_links_every_paper_that_mentions_it(seeds_result, seeds_kg, name):
    flags = 0 if name == "large language model" else re.I
    mentioning = {x.paper.id for x in seeds_result.extractions if re.search(SHARED_ENTITIES[name], x.paper.abstract, flags)}
    linked = {row["paper_id"] for row in seeds_kg.papers_with(name)}
    assert len(mentioning) >= 2, f"{name}: the test expects at least two seed papers to mention it"
    assert mentioning <= linked, f"{name}: papers {sorted(mentioning - linked)} mention it but are not linked"


def test_no_generic_word_is_an_entity(seeds_result):
    for extraction in seeds_result.extractions:
        for entity in extraction.entities:
            assert entity.key not in GENERIC_HEADS, (extraction.paper.id, entity.name)
            for mention in entity.mentions:
                assert mention.text.lower() not in GENERIC_HEADS


def test_offsets_index_the_abstract_and_spans_are_trimmed(seeds_result):
    for extraction in seeds_result.extractions:
        abstract = extraction.paper.abstract
        for entity in extraction.entities:
            assert entity.evidence and entity.evidence in abstract
            for m in entity.mentions:
                assert abstract[m.start : m.end] == m.text
                assert m.text == m.text.strip()
                assert not re.match(r"(?i)(the|a|an)\s", m.text), m.text
                assert m.text[-1] not in ".,;:", m.text
                assert m.start >= abstract.index(m.sentence)


def test_roles_on_real_abstracts(seeds_result):
    roles = {}
    for extraction in seeds_result.extractions:
        for entity in extraction.entities:
            roles.setdefault(entity.name, set()).add(entity.role)
    # RVI-SAC extends Soft Actor-Critic: the paper uses SAC, it does not propose it.
    rvi = next(x for x in seeds_result.extractions if "RVI-SAC" in x.paper.abstract)
    sac = [e for e in rvi.entities if e.key == "soft actor critic"]
    assert sac and sac[0].role == "used"
    # Background-only sentences yield "mentioned" somewhere in the corpus.
    assert any("mentioned" in r for r in roles.values())


def test_acronym_and_long_form_unify(seeds_result):
    tdpo = next(x for x in seeds_result.extractions if "TDPO" in x.paper.abstract)
    entity = next(e for e in tdpo.entities if any(m.text == "TDPO" for m in e.mentions))
    texts = {m.text for m in entity.mentions}
    # The long form is one occurrence with its definition: one mention, however many sources found it.
    assert any(t.startswith("Token-level Direct Preference Optimization") for t in texts)
    assert len({(m.start, m.end) for m in entity.mentions}) == len(entity.mentions) == entity.count


def test_mention_counts_are_distinct_occurrences(seeds_result):
    """One mention per occurrence on the real seeds: no span twice, no mention inside another
    mention of the same entity, and ``nested`` only for a strictly inner, different span."""
    for extraction in seeds_result.extractions:
        spans = [(m.start, m.end) for e in extraction.entities for m in e.mentions]
        assert len(spans) == len(set(spans)), extraction.paper.id
        for entity in extraction.entities:
            assert entity.count == len(entity.mentions)
            for m in entity.mentions:
                assert not any(o is not m and o.start <= m.start and m.end <= o.end for o in entity.mentions)
                inner = any((s, e) != (m.start, m.end) and s <= m.start and m.end <= e for s, e in spans)
                assert m.nested == inner


def test_labels_use_proposed_names(seeds_result):
    labels = {x.label for x in seeds_result.extractions}
    assert {"HarmonyDream", "EE-LLM", "TDPO"} <= labels


def test_same_input_same_output(seeds_dir, seeds_result, use_model):
    import paperkg
    from paperkg.extract.output import extraction_record

    again = paperkg.extract_entities([seeds_dir], use_model=use_model, progress=False)
    assert [extraction_record(x) for x in again.extractions] == [extraction_record(x) for x in seeds_result.extractions]
