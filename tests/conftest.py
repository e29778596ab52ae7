"""Shared fixtures. Tests that read ../shared/data skip when it is absent, but never in CI."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
EXAMPLES = ROOT / "examples"

pytest_plugins = [p for p in ("neo4j_fixtures",) if (Path(__file__).parent / f"{p}.py").exists()]


def require_shared() -> Path:
    """The shared data folder; skip (with the reason) when absent, fail in CI."""
    if SHARED.is_dir():
        return SHARED
    message = f"{SHARED} is absent: tests on real abstracts need the shared data folder beside the repo"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(autouse=True)
def _loggers_as_they_were():
    """The CLI run in-process (CliRunner) points paperkg's logger at stderr and stops it
    propagating; put it back after each test, so ``caplog`` sees paperkg's warnings in any order."""
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in map(logging.getLogger, ("paperkg", "neo4j"))]
    yield
    for logger, handlers, level, propagate in saved:
        logger.handlers[:], logger.level, logger.propagate = handlers, level, propagate


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return require_shared()


@pytest.fixture(scope="session")
def seeds_dir(shared_data: Path) -> Path:
    return shared_data / "seeds"


@pytest.fixture(scope="session")
def use_model() -> bool:
    """The trained model when it ships (it always should); the rules alone otherwise."""
    from paperkg.extract.nlp.pipeline import MODEL_DIR

    return (MODEL_DIR / "meta.json").exists()


@pytest.fixture(scope="session")
def seeds_result(seeds_dir: Path, use_model: bool):
    import paperkg

    return paperkg.extract_entities([seeds_dir], use_model=use_model, progress=False)


@pytest.fixture(scope="session")
def seeds_kg(seeds_dir: Path, use_model: bool):
    import paperkg

    return paperkg.build([seeds_dir], use_model=use_model, progress=False)


#: Datasets whose scores the corpus fixture's abstracts report (picked by name below).
RESULT_DATASETS = ("ImageNet", "CIFAR-10")


@pytest.fixture(scope="session")
def results_kg(shared_data: Path, use_model: bool, tmp_path_factory: pytest.TempPathFactory):
    """The graph of the real ICML 2024 abstracts that name ImageNet or CIFAR-10 and give a
    percentage: about 30 papers with scores on both (leaderboards with rows) and many gains."""
    import json

    import paperkg

    corpus = shared_data / "corpus" / "icml2024.jsonl"
    if not corpus.is_file():
        pytest.skip(f"{corpus} is absent")
    path = tmp_path_factory.mktemp("results") / "icml2024-results.jsonl"
    with corpus.open(encoding="utf-8") as source, path.open("w", encoding="utf-8") as out:
        for line in source:
            abstract = json.loads(line)["abstract"]
            if "%" in abstract and any(name in abstract for name in RESULT_DATASETS):
                out.write(line)
    return paperkg.build([path], use_model=use_model, progress=False)
