"""A regular (non-editable) install ships one import package, paperkg, with its data files."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_has_only_the_paperkg_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)], check=True)
    wheel = next(tmp_path.glob("paperkg-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"paperkg", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for needed in [
        "paperkg/extract/pipeline.py",
        "paperkg/extract/data/curated.tsv",
        "paperkg/extract/data/pwc.tsv",
        "paperkg/graph/linking.py",
        "paperkg/queries/neo4j_local/pom.xml",
        "paperkg/extract/model/ner/meta.json",
        "paperkg/extract/model/ner/ner/model",
    ]:
        assert needed in names, f"{needed} missing from the wheel"
    assert any(n.startswith("paperkg/queries/") and n.endswith(".cypher") for n in names)
    assert any(n.startswith("paperkg/graph/templates/") for n in names)
