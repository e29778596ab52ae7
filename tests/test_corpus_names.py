"""Every entity name of the real ICML 2024 build is clean: no markdown or LaTeX markup, no
function word at its end, balanced brackets."""

from __future__ import annotations

import re
from pathlib import Path

from paperkg.extract.nlp.filtering import FUNCTION_WORDS, balanced

_MARKUP = re.compile(r"\*\*|__|`|\$|\\[A-Za-z]+|</?[a-z]+>")


def test_icml2024_entity_names_are_clean(shared_data: Path) -> None:
    from paperkg.extract.read.readers import read_papers
    from paperkg.extract.run.corpus import extract_papers

    papers = read_papers([shared_data / "corpus" / "icml2024.jsonl"]).papers
    assert len(papers) > 2000
    names = {e.name for x in extract_papers(papers, n_process=1, progress=False) for e in x.entities}
    assert len(names) > 5000
    marked = sorted(n for n in names if _MARKUP.search(n))
    dangling = sorted(n for n in names if len(n.split()) > 1 and n.split()[-1].strip(".,;:") in FUNCTION_WORDS)
    unbalanced = sorted(n for n in names if not balanced(n))
    assert not marked, marked[:20]
    assert not dangling, dangling[:20]
    assert not unbalanced, unbalanced[:20]
