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


def _children(pid: int) -> set[int]:
    """The live children of ``pid`` (from /proc: Linux only)."""
    from pathlib import Path

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM"])
def test_workers_die_with_a_killed_build(shared_data, tmp_path, signal_name):
    """Issue 21 M9: kill -9 (or -15) of ``build --n-process 2`` left both workers (~260 MB each)
    and the resource tracker running forever. Now each worker watches its parent."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads processes from /proc (Linux)")
    build = subprocess.Popen(
        [sys.executable, "-c", "from paperkg.cli import main; main()", "build",
         str(shared_data / "corpus" / "icml2024.jsonl"), "--out", str(tmp_path / "out"), "--n-process", "2",
         "--no-html", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PAPERKG_HOME": str(tmp_path / "home")})
    try:
        children: set[int] = set()
        for _ in range(600):  # until the resource tracker and both workers run (at most 2 min)
            children = _children(build.pid)
            if len(children) >= 3 or build.poll() is not None:
                break
            time.sleep(0.2)
        assert len(children) >= 3 and build.poll() is None, f"the build did not start its workers ({children})"
        time.sleep(2)  # the workers are extracting, not just starting
        build.send_signal(getattr(signal, signal_name))
        build.wait(timeout=60)
        for _ in range(150):  # at most 30 s
            if not any(map(_alive, children)):
                break
            time.sleep(0.2)
        left = sorted(pid for pid in children if _alive(pid))
        assert not left, f"processes left running after {signal_name} of their build: {left}"
    finally:
        if build.poll() is None:
            build.kill()
        for pid in _children(build.pid) | children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
