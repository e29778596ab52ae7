"""Issue 11, M2: the same input builds byte-identical outputs across PYTHONHASHSEED values and
``--n-process`` settings (roles, evidence and ``nested`` flags used to follow set order)."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.shared_data


def build(inputs, out, seed, n_process):
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    result = subprocess.run(
        [sys.executable, "-c", "from paperkg.cli import main; main()", "-q", "build", *map(str, inputs),
         "--out", str(out), "--no-progress", "--n-process", str(n_process)],
        capture_output=True, text=True, env=env,
    )
    assert result.returncode == 0, result.stderr
    return {path.name: path.read_bytes() for path in sorted(out.iterdir()) if path.is_file()}


def test_builds_are_byte_identical_across_hash_seeds_and_processes(shared_data, tmp_path):
    # The seed lists plus the first ICML abstracts: real text with definitions, nesting and roles.
    sample = tmp_path / "icml_sample.jsonl"
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as handle:
        sample.write_text("".join(line for _, line in zip(range(150), handle)), encoding="utf-8")
    inputs = [shared_data / "seeds", sample]
    first = build(inputs, tmp_path / "a", seed=1, n_process=1)
    second = build(inputs, tmp_path / "b", seed=2024, n_process=2)
    assert {"graph.json", "graph.graphml", "mentions.jsonl"} <= set(first)
    assert first.keys() == second.keys()
    differing = [name for name in first if first[name] != second[name]]
    assert not differing, f"outputs differ between PYTHONHASHSEED=1/--n-process 1 and 2024/2: {differing}"
