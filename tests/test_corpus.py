"""The ICML 2024 corpus (2,634 real papers): what a user sees at the top of the graph."""

import pytest

import paperkg
from paperkg.extract.nlp.normalize import GENERIC_HEADS, is_generic

ISSUE_GENERIC_WORDS = {"method", "model", "framework", "approach", "network", "algorithm", "task", "dataset", "benchmark"}


@pytest.fixture(scope="module")
def icml_kg(shared_data, use_model):
    return paperkg.build([shared_data / "corpus" / "icml2024.jsonl"], use_model=use_model, n_process=1, progress=False)


def test_no_generic_word_in_top_30(icml_kg):
    top = icml_kg.entities(limit=30)
    assert len(top) == 30
    for row in top:
        words = set(row["name"].lower().split())
        assert not is_generic(row["name"]), row
        assert row["key"] not in GENERIC_HEADS and not words <= ISSUE_GENERIC_WORDS, row


def test_every_paper_kept_and_links_stay_sparse(icml_kg):
    counts = icml_kg.stats(top=0)["counts"]
    assert counts["papers"] == 2634
    assert counts["paper_links"] <= 20 * counts["papers"]
    assert icml_kg.report.read == icml_kg.report.written + len(icml_kg.report.skipped)


def test_the_progress_rate_starts_when_the_first_paper_is_done():
    """The model's loading (here a slow first item) does not count into the rate and ETA."""
    import io
    import re
    import time

    from paperkg.extract.run.corpus import progress_bar

    def stream():
        time.sleep(1.0)
        yield from range(200)

    out = io.StringIO()
    assert list(progress_bar(stream(), 200, file=out)) == list(range(200))
    rate = float(re.findall(r"([\d.]+)abstract/s", out.getvalue())[-1])
    assert rate > 1000, f"the slow first item counted into the rate: {rate} abstracts/s"
