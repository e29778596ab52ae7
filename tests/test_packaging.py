"""A regular (non-editable) install ships one import package, paperkg, with its data files."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_has_only_the_paperkg_package(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-v", "-w", str(tmp_path)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    log = build.stdout + build.stderr
    assert "absent from the `packages` configuration" not in log, "package data in a folder pyproject does not declare"
    wheel = next(tmp_path.glob("paperkg-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"paperkg", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for needed in [
        "paperkg/extract/nlp/pipeline.py",
        "paperkg/extract/learn/ner.cfg",
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


def test_every_shipped_folder_is_a_declared_package():
    """pyproject lists every folder of the stages (data-only ones too), so setuptools has
    nothing to warn about and a new folder cannot be left out of the wheel unnoticed."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = set(config["packages"])
    for package, folder in config["package-dir"].items():
        root = ROOT / folder
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and "__pycache__" not in path.parts and "target" not in path.relative_to(root).parts \
                    and any(p.is_file() for p in path.iterdir()):
                name = ".".join([package, *path.relative_to(root).parts])
                assert name in declared, f"{path} ships files but {name} is not in pyproject's packages"
