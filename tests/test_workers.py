"""Worker processes (``n_process > 1``) give exactly the single-process output, in input order,
on real abstracts; and the component's token-offset arrays agree with spaCy's own spans."""

from __future__ import annotations

import pytest

from paperkg.extract.read.readers import read_papers
from paperkg.extract.run import corpus as run


@pytest.fixture(scope="module")
def papers(shared_data):
    # Across the three venues, so that markup, long abstracts and budget notes all occur.
    return [p for name in ("iclr2024", "icml2024", "neurips2023")
            for p in read_papers([shared_data / "corpus" / f"{name}.jsonl"]).papers[:70]]


def stream(papers, n_process, batch_size):
    return list(run._local_stream(papers, range(len(papers)), use_model=True, n_process=n_process, batch_size=batch_size))


def test_workers_equal_one_process_in_input_order(papers, use_model):
    if not use_model:
        pytest.skip("the trained model is missing; the equality that matters is the NER's batches")
    one = stream(papers, 1, 16)
    two = stream(papers, 2, 16)  # 210 abstracts, tasks of 64: four tasks and a short last one
    assert [row[0] for row in two] == list(range(len(papers)))
    assert two == one
    assert sum(len(doc.mentions) for _, doc, _ in one) > 1000  # real work, not an empty pipeline


def test_token_offsets_match_spacy_sentences_and_spans(papers):
    from paperkg.extract.nlp.markup import mask_markup
    from paperkg.extract.nlp.pipeline import _token_offsets, build_pipeline

    nlp = build_pipeline(False)
    for doc in nlp.pipe(mask_markup(p.abstract) for p in papers[:60]):
        starts, ends, sentences = _token_offsets(doc)
        assert sentences == [(s.start_char, s.end_char) for s in doc.sents]
        assert (starts, ends) == ([t.idx for t in doc], [t.idx + len(t) for t in doc])
    assert _token_offsets(nlp("")) == ([], [], [])


def test_one_process_extraction_keeps_freed_memory_like_a_worker(papers, monkeypatch):
    # The in-process path must set the workers' heap settings too (issue 23: 8% of its CPU was
    # in the kernel without them); bench/bench_inprocess.py measures the effect.
    calls = []
    monkeypatch.setattr(run, "keep_freed_memory", lambda: calls.append(True))
    rows = list(run._local_stream(papers[:3], range(3), use_model=False, n_process=1, batch_size=8))
    assert len(rows) == 3 and calls == [True]
