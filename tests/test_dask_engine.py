"""The Dask engine gives the local engine's output, on a LocalCluster of 2 workers."""

from __future__ import annotations

import json
import os
import sys

import pytest

import paperkg
from paperkg.errors import ExtractionError
from paperkg.graph.export_set import MANIFEST
from scale_inputs import corpus_and_unlabeled, output_files


def require_dask():
    """Dask's distributed scheduler; skip when absent, but fail in CI (.ci/run installs paperkg[dask])."""
    try:
        import distributed
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("dask[distributed] is missing: .ci/run installs the paperkg[dask] extra")
        pytest.skip("dask[distributed] is not installed (pip install 'paperkg[dask]')")
    return distributed


@pytest.fixture(scope="module")
def cluster():
    distributed = require_dask()
    # In-process workers keep the test cheap; each worker thread still loads its own pipeline.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as local:
        yield local


@pytest.mark.shared_data
def test_dask_engine_output_equals_the_local_engine(shared_data, tmp_path, cluster, use_model):
    inputs = corpus_and_unlabeled(shared_data, tmp_path, corpus=80, unlabeled=40, offset=1000)
    local = paperkg.build(inputs, use_model=use_model, progress=False)
    local.export(tmp_path / "local")
    distributed = require_dask()
    with distributed.Client(cluster.scheduler_address) as client, distributed.get_task_stream(client=client) as tasks:
        remote = paperkg.build(inputs, use_model=use_model, progress=False, engine="dask",
                               scheduler=cluster.scheduler_address, store=tmp_path / "dask-store.sqlite")
    remote.export(tmp_path / "dask")
    assert remote.build_stats.extraction.extracted == 120
    got, want = output_files(tmp_path / "dask"), output_files(tmp_path / "local")
    assert sorted(got) == sorted(want)
    # The manifest records each build's own extraction store (this test gives the two builds
    # different ones); everything else in it, and every export, is the same.
    for files in (got, want):
        manifest = json.loads(files[MANIFEST])
        manifest.get("build", {}).pop("store", None)
        files[MANIFEST] = json.dumps(manifest, sort_keys=True).encode()
    for name in want:
        assert got[name] == want[name], f"{name} differs between the Dask and the local engine"
    assert len({task["worker"] for task in tasks.data if "extract_partition" in str(task["key"])}) == 2, "both workers extract"


def test_without_dask_the_engine_says_how_to_install_it(monkeypatch, tmp_path):
    from conftest import EXAMPLES

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ExtractionError, match=r"paperkg\[dask\]"):
        paperkg.build([EXAMPLES / "abstracts.txt"], use_model=False, progress=False, engine="dask")
