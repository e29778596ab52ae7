"""The build's streamed resolution: records made batch by batch, added to the graph as they come
and spilled to disk, give what resolving the whole corpus in memory gives (real abstracts)."""

from __future__ import annotations

import pickle

import pytest
from scale_inputs import corpus_and_unlabeled

import paperkg
from paperkg.extract.output import extraction_record
from paperkg.extract.read.readers import read_papers
from paperkg.extract.resolve.canonical import resolve
from paperkg.extract.resolve.roles import assign_roles
from paperkg.extract.results.extract import with_results
from paperkg.extract.run.corpus import paper_keys
from paperkg.extract.run.store import BATCH, ExtractionStore, StoredDocs, extractor_version
from paperkg.graph.build import build_graph
from paperkg.graph.export import iter_node_link
from paperkg.spill import Spill


def test_spill_keeps_order_across_partial_batches_and_indexes_like_a_list():
    spill, want = Spill(batch=4), []
    for chunk in (range(0, 3), range(3, 9), range(9, 10)):
        for item in chunk:
            spill.append({"n": item})
            want.append({"n": item})
        assert list(spill) == want  # iterating writes a partial batch; appends go on after it
    assert len(spill) == 10 and spill[0] == want[0] and spill[9] == want[9] and spill[-2] == want[8]
    assert spill[2:7] == want[2:7] and spill[::-3] == want[::-3]
    with pytest.raises(IndexError):
        spill[10]
    with pytest.raises(IndexError):
        spill[-11]


def test_a_spill_holds_copies_not_the_objects_it_was_given():
    spill = Spill(batch=2)
    items = [[1], [2], [3]]
    assert list(spill.tee(iter(items))) == items
    assert spill[0] == [1] and spill[0] is not items[0]
    assert pickle.loads(pickle.dumps(list(spill))) == items


@pytest.mark.shared_data
def test_streamed_build_equals_resolving_everything_in_memory(shared_data, tmp_path):
    # More papers than one batch, so records cross batch boundaries of the roles and the spill.
    inputs = corpus_and_unlabeled(shared_data, tmp_path, corpus=BATCH + 150, unlabeled=200)
    store = tmp_path / "store.sqlite"
    kg = paperkg.build(inputs, use_model=False, progress=False, store=store)
    assert isinstance(kg.extractions, Spill) and len(kg.extractions) == BATCH + 350

    papers = read_papers(inputs).papers
    db = ExtractionStore(store)
    try:
        docs = StoredDocs(db, paper_keys(papers), extractor_version(False))
        in_memory = resolve(papers, list(docs))
    finally:
        db.close()
    whole = [with_results(x) for x in assign_roles(in_memory.extractions)]  # the stages after resolution
    assert [extraction_record(x) for x in kg.extractions] == [extraction_record(x) for x in whole]
    assert list(kg.extractions) == whole  # every field, sentences and origins too
    assert list(kg.resolution) == in_memory.report
    assert "".join(iter_node_link(kg.graph)) == "".join(iter_node_link(build_graph(whole)))
