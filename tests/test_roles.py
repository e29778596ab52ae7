"""The learned role component: features on strings, the classifier, and real abstracts."""

from __future__ import annotations

from pathlib import Path

from paperkg.extract.learn.roles import fit, gold_examples
from paperkg.extract.resolve.roles import (
    FEATURES,
    PaperContext,
    RoleModel,
    entity_features,
    load_role_model,
    split_sentences,
    title_head,
)

ABSTRACT = (
    "Diffusion models have shown great promise. We propose HarmonyDream, a world model that "
    "balances losses. We evaluate HarmonyDream on MuJoCo and compare with Soft Actor-Critic."
)


def span(phrase: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = ABSTRACT.index(phrase, start + 1)
    return start, start + len(phrase)


def features(phrase: str, title: str | None = None, known: bool = False, type_: str = "Method", n: int = 1):
    spans = [span(phrase, i) for i in range(n)]
    context = PaperContext.of(ABSTRACT, title)
    return dict(zip(FEATURES, entity_features(context, spans, name=phrase, type_=type_, known=known)))


def test_features_on_strings() -> None:
    own = features("HarmonyDream", title="HarmonyDream: Task Harmonization Inside World Models", n=2)
    assert own["in_proposal_object"] == own["title_opens_with"] == own["coined"] == own["coined_unknown"] == 1.0
    background = features("Diffusion models")
    assert background["first_sentence"] == background["background_sentence"] == 1.0
    assert background["in_proposal_object"] == 0.0
    assert features("MuJoCo", known=True, type_="Benchmark")["known"] == 1.0
    assert title_head("DeepSPF: Spherical Patches") == "DeepSPF" and title_head("Plain title") is None
    assert len(split_sentences(ABSTRACT)) == 3


def test_fit_is_deterministic_and_learns() -> None:
    x = [[1.0, 1.0] + [0.0] * (len(FEATURES) - 2), [1.0, 0.0] + [0.0] * (len(FEATURES) - 2)] * 20
    y = ["proposed", "used"] * 20
    first, second = fit(x, y), fit(x, y)
    assert first == second
    assert first.predict(x[0]) == "proposed" and first.predict(x[1]) == "used"
    assert RoleModel.from_json(first.to_json()) == first


def _dev_scores(model: RoleModel, x: list, y: list) -> tuple[float, float]:
    predicted = [model.predict(v) for v in x]
    accuracy = sum(p == g for p, g in zip(predicted, y)) / len(y)
    tp = sum(p == g == "proposed" for p, g in zip(predicted, y))
    return accuracy, tp / max(1, predicted.count("proposed"))


def test_shipped_model_on_real_abstracts(shared_data: Path) -> None:
    """On the dev abstracts' gold entities (never trained on), the shipped role model keeps
    proposed precision >= 0.7 and accuracy >= 0.8, and so does a refit on paperkg_train (the
    gold grows between rounds: the refit is held to the same bar, not to the shipped weights)."""
    from paperkg.extract.read.gold import read_paper_gold

    model = load_role_model()
    assert model is not None, "the role model ships with the NER (extract/model/ner/roles.json)"
    x, y = gold_examples(read_paper_gold(shared_data / "gold" / "paperkg_dev.jsonl"))
    accuracy, precision = _dev_scores(model, x, y)
    assert accuracy >= 0.8 and precision >= 0.7, (accuracy, precision)
    refit = fit(*gold_examples(read_paper_gold(shared_data / "gold" / "paperkg_train.jsonl")))
    accuracy, precision = _dev_scores(refit, x, y)
    assert accuracy >= 0.8 and precision >= 0.7, ("refit", accuracy, precision)


def test_title_names_the_proposed_method_on_a_real_abstract(shared_data: Path) -> None:
    from paperkg.extract.read.readers import read_papers
    from paperkg.extract.run.corpus import extract_papers

    papers = [p for p in read_papers([shared_data / "corpus" / "iclr2024.jsonl"]).papers
              if p.title and p.title.startswith("DeepSPF:")]
    assert papers
    (extraction,) = extract_papers(papers[:1], progress=False)
    roles = {e.name: e.role for e in extraction.entities}
    assert roles.get("DeepSPF") == "proposed" or any(
        r == "proposed" and "DeepSPF" in {m.text for m in e.mentions} for e in extraction.entities for r in [e.role]
    ), roles


def _features_per_mention(context: PaperContext, spans, *, name: str, type_: str, known: bool) -> list[float]:
    """The features as computed before the per-sentence cues: every sentence cue re-run per
    mention over the whole sentence (quadratic on a long sentence), kept here as the oracle."""
    import re as _re
    from bisect import bisect_right

    from paperkg.extract.nlp.rules import PROPOSER, USE_CUE, proposal_spans
    from paperkg.extract.resolve import roles

    out = dict(zip(FEATURES, entity_features(context, spans, name=name, type_=type_, known=known)))
    starts = [s for s, _ in context.sentences]
    flags = dict.fromkeys(("use_cue_sentence", "background_sentence", "result_sentence", "proposer_sentence", "proposal_pattern"), 0.0)
    for start, end in spans:
        index = max(bisect_right(starts, start) - 1, 0)
        s_start, s_end = context.sentences[index]
        sentence = context.abstract[s_start:s_end]
        flags["proposal_pattern"] = max(flags["proposal_pattern"], float((start - s_start, end - s_start) in proposal_spans(sentence)))
        flags["use_cue_sentence"] = max(flags["use_cue_sentence"], float(bool(USE_CUE.search(sentence))))
        flags["background_sentence"] = max(flags["background_sentence"], float(bool(roles._BACKGROUND.search(sentence))))
        flags["result_sentence"] = max(flags["result_sentence"], float(bool(roles._RESULT.search(sentence))))
        proposer = bool(PROPOSER.search(sentence) and roles._ALSO_PROPOSE.search(sentence))
        flags["proposer_sentence"] = max(flags["proposer_sentence"], float(proposer))
    assert _re  # the oracle reads the module's own patterns
    return [flags.get(f, out[f]) for f in FEATURES]


def test_sentence_cues_equal_the_per_mention_cues() -> None:
    """Cues computed once per sentence give the features the per-mention computation gave."""
    texts = [
        ABSTRACT,
        "We propose a paradigm called Implicit Neural Teaching (INT) that treats INT as used. Results on ImageNet.",
        "Prior work uses SAC. However, SAC struggles. We introduce RVI-SAC, an extension of SAC. RVI-SAC outperforms SAC.",
        ("foo (FN) " * 40).strip(),
    ]
    for text in texts:
        context = PaperContext.of(text, "RVI-SAC: Average Reward")
        for phrase in ("SAC", "INT", "RVI-SAC", "FN", "foo", "HarmonyDream", "ImageNet", "MuJoCo"):
            spans, start = [], text.find(phrase)
            while start >= 0:
                spans.append((start, start + len(phrase)))
                start = text.find(phrase, start + 1)
            if spans:
                got = entity_features(context, spans, name=phrase, type_="Method", known=False)
                assert got == _features_per_mention(context, spans, name=phrase, type_="Method", known=False), (text, phrase)


def test_batch_prediction_equals_one_at_a_time() -> None:
    model = load_role_model()
    if model is None:
        return
    context = PaperContext.of(ABSTRACT, None)
    rows = [entity_features(context, [span(p)], name=p, type_="Method", known=False) for p in ("HarmonyDream", "MuJoCo", "Diffusion models")]
    assert model.predict_many(rows) == [model.predict(row) for row in rows]
