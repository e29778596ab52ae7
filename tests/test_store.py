"""The extraction store and incremental builds, on real abstracts from ../shared/data."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from scale_inputs import corpus_and_unlabeled, output_files

import paperkg
from paperkg.errors import StoreError
from paperkg.extract.run import store as store_module
from paperkg.extract.run.store import STORE_NAME, ExtractionStore, extractor_version

pytestmark = pytest.mark.shared_data


def build_into(inputs, out, *, use_model, store=None):
    kg = paperkg.build(inputs, use_model=use_model, progress=False, store=store or out / STORE_NAME)
    kg.export(out)
    return kg


def test_incremental_build_equals_a_fresh_build_byte_for_byte(shared_data, tmp_path, use_model):
    a = corpus_and_unlabeled(shared_data, tmp_path, corpus=120, unlabeled=40)
    b = corpus_and_unlabeled(shared_data, tmp_path, corpus=30, unlabeled=20, offset=500)
    incremental, fresh = tmp_path / "incremental", tmp_path / "fresh"

    first = build_into(a, incremental, use_model=use_model)
    assert (first.build_stats.extraction.extracted, first.build_stats.extraction.reused) == (160, 0)
    second = build_into(a + b, incremental, use_model=use_model)
    assert (second.build_stats.extraction.extracted, second.build_stats.extraction.reused) == (50, 160)
    whole = build_into(a + b, fresh, use_model=use_model)
    assert whole.build_stats.extraction.extracted == 210

    got, want = output_files(incremental), output_files(fresh)
    assert sorted(got) == sorted(want) and "graph.json" in got and "mentions.jsonl" in got
    for name in want:
        assert got[name] == want[name], f"{name} differs between the incremental and the fresh build"


def test_a_changed_abstract_is_extracted_again_and_the_rest_reused(shared_data, tmp_path):
    inputs = corpus_and_unlabeled(shared_data, tmp_path, corpus=40, unlabeled=0)
    store = tmp_path / "s.sqlite"
    paperkg.build(inputs, use_model=False, progress=False, store=store)
    lines = inputs[0].read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[3])
    record["abstract"] += " We also evaluate on MuJoCo."
    lines[3] = json.dumps(record)
    inputs[0].write_text("\n".join(lines) + "\n", encoding="utf-8")
    kg = paperkg.build(inputs, use_model=False, progress=False, store=store)
    assert (kg.build_stats.extraction.extracted, kg.build_stats.extraction.reused) == (1, 39)
    assert "entity:mujoco" in set(kg.graph.successors(f"paper:{record['id']}"))
    # Another extractor (no model vs model) shares nothing with the first.
    assert extractor_version(True) != extractor_version(False)


def test_the_extractor_version_follows_code_and_data(tmp_path, monkeypatch):
    copy = tmp_path / "extract"
    shutil.copytree(store_module._EXTRACT_DIR, copy, ignore=shutil.ignore_patterns("model", "__pycache__"))
    monkeypatch.setattr(store_module, "_EXTRACT_DIR", copy)

    def version():
        store_module._extractor_version.cache_clear()
        return extractor_version(False)

    base = version()
    (copy / "nlp" / "rules.py").write_text((copy / "nlp" / "rules.py").read_text() + "\n# changed\n")
    after_code = version()
    data = sorted((copy / "data").iterdir())[0]
    data.write_bytes(data.read_bytes() + b"\n")
    after_data = version()
    (copy / "evaluate" / "spans.py").write_text("# not per-document code\n")
    assert len({base, after_code, after_data}) == 3 and version() == after_data
    store_module._extractor_version.cache_clear()


def test_a_file_that_is_not_a_store_is_one_error(tmp_path):
    bad = tmp_path / "not-a-store.sqlite"
    bad.write_text("hello, I am text\n" * 100)
    with pytest.raises(StoreError, match="not-a-store.sqlite"):
        ExtractionStore(bad)


def test_build_reports_the_incremental_cost_and_keeps_the_store_in_out(tmp_path):
    from conftest import EXAMPLES

    def build():
        return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "build",
                               str(EXAMPLES / "abstracts.txt"), "--out", str(tmp_path), "--no-model", "--no-progress", "--no-html"],
                              capture_output=True, text=True)

    first, second = build(), build()
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "extraction: 8 papers extracted, 0 reused from the store" in first.stderr
    assert "extraction: 0 papers extracted, 8 reused from the store" in second.stderr
    assert (tmp_path / STORE_NAME).is_file()


def test_an_interrupted_extraction_keeps_its_committed_batches(shared_data, tmp_path, monkeypatch):
    from paperkg.extract.run import corpus as run

    inputs = corpus_and_unlabeled(shared_data, tmp_path, corpus=0, unlabeled=store_module.BATCH + 100)
    real_stream = run._local_stream

    def killed_after_one_batch(*args, **kwargs):
        for count, item in enumerate(real_stream(*args, **kwargs)):
            if count == store_module.BATCH + 50:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(run, "_local_stream", killed_after_one_batch)
    store = tmp_path / "s.sqlite"
    with pytest.raises(KeyboardInterrupt):
        paperkg.build(inputs, use_model=False, progress=False, store=store)
    monkeypatch.setattr(run, "_local_stream", real_stream)
    kg = paperkg.build(inputs, use_model=False, progress=False, store=store)
    assert (kg.build_stats.extraction.extracted, kg.build_stats.extraction.reused) == (100, store_module.BATCH)


def test_a_reused_paper_warns_as_when_it_was_extracted(tmp_path, monkeypatch, caplog):
    import logging

    from paperkg.extract.nlp import budget
    from paperkg.extract.run.corpus import extract_papers
    from paperkg.types import Paper

    monkeypatch.setattr(budget, "STEPS_PER_CHAR", 0)
    monkeypatch.setattr(budget, "STEPS_BASE", 50)
    paper = Paper(id="p", abstract="We train Soft Actor-Critic (SAC) agents; SAC wins. " * 5, source="in.jsonl", line=7)
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="paperkg"):
            extract_papers([paper], use_model=False, progress=False, store=tmp_path / "s.sqlite")
        assert "in.jsonl:7: abbreviation detection skipped" in caplog.text
