"""The resolution passes and the papers' records made in forked processes (paperkg.forks.fork_map,
used by paperkg.extract.resolve.canonical and paperkg.extract.run.corpus): the same records as made in turn, in order, and a
child's error or death is one line in the parent with no process left behind."""

from __future__ import annotations

import multiprocessing
import os
import signal
from itertools import islice
from pathlib import Path

import pytest

from paperkg.errors import InputError
from paperkg.extract.resolve import canonical
from paperkg.extract.run import corpus
from paperkg.forks import WorkerDiedError, can_fork, fork_map
from paperkg.extract.read.readers import read_papers

pytestmark = pytest.mark.skipif(not can_fork(), reason="the records are made in turn where fork is not available")


def _square_or_fail(n: int) -> int:
    if n == 7:
        raise InputError("paper 7: refused")
    return n * n


def _die_at_5(n: int) -> int:
    if n == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_results_come_in_task_order_from_several_children():
    assert list(fork_map(_square_or_fail, range(7), 3, what="squares")) == [n * n for n in range(7)]
    assert not multiprocessing.active_children()


def test_a_childs_error_is_raised_as_itself_and_the_children_end():
    results = []
    with pytest.raises(InputError, match="paper 7: refused") as caught:
        results.extend(fork_map(_square_or_fail, range(20), 2, what="squares"))
    assert results == [n * n for n in range(7)]  # every result before the failing task, in order
    assert "Traceback" in str(caught.value.__cause__)
    assert not multiprocessing.active_children()


def test_a_child_that_dies_is_named_and_the_others_are_stopped():
    with pytest.raises(WorkerDiedError, match="a process making numbers died"):
        list(fork_map(_die_at_5, range(50), 2, what="numbers"))
    assert not multiprocessing.active_children()


def test_a_consumer_that_stops_early_ends_the_children():
    results = fork_map(_square_or_fail, range(100), 2, what="squares")
    assert next(results) == 0
    results.close()
    assert not multiprocessing.active_children()


def test_forked_records_equal_the_records_made_in_turn(shared_data: Path, use_model: bool, tmp_path, monkeypatch):
    path = tmp_path / "icml2024-head.jsonl"
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as source:
        path.write_text("".join(islice(source, 300)), encoding="utf-8")
    papers = read_papers([path]).papers
    store = tmp_path / "store.sqlite"
    serial = corpus.extract_corpus(papers, use_model=use_model, progress=False, store=store)
    monkeypatch.setattr(corpus, "BATCH", 64)  # five batches over two children
    monkeypatch.setattr(canonical, "PASS_BATCH", 32)  # the resolution passes: ten
    assert corpus.corpus_processes(2, len(papers)) == 2
    forked = corpus.extract_corpus(papers, n_process=2, use_model=use_model, progress=False, store=store)
    assert [x.paper.id for x in forked.extractions] == [p.id for p in papers]
    # The read papers themselves, not the children's copies: the graph holds one of each abstract.
    assert all(x.paper is paper for x, paper in zip(forked.extractions, papers))
    assert forked.extractions == serial.extractions
    assert forked.report == serial.report and forked.acronyms.expansion == serial.acronyms.expansion
    assert any(row.get("merged") for row in forked.report)
    assert sum(e.role == "proposed" for x in forked.extractions for e in x.entities) > 0
    assert not multiprocessing.active_children()


def test_forked_resolution_of_an_in_memory_store_equals_the_one_made_in_turn(shared_data: Path, tmp_path, monkeypatch):
    """Without a store file the children read their copy of the in-memory database."""
    path = tmp_path / "icml2024-head.jsonl"
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as source:
        path.write_text("".join(islice(source, 120)), encoding="utf-8")
    papers = read_papers([path]).papers
    monkeypatch.setattr(corpus, "BATCH", 32)
    monkeypatch.setattr(canonical, "PASS_BATCH", 16)
    serial = corpus.extract_corpus(papers, use_model=False, progress=False)
    forked = corpus.extract_corpus(papers, n_process=2, use_model=False, progress=False)
    assert forked.extractions == serial.extractions and forked.report == serial.report
    assert not multiprocessing.active_children()
