"""Forgiving input, never silent: header case, field synonyms (said in a warning), .json arrays
of records, gzipped files, global options after the subcommand."""

from __future__ import annotations

import gzip
import json
import logging

import pytest

from paperkg.errors import InputError
from paperkg.extract.read.readers import iter_input_files, read_papers

A1 = "We propose SAC-X, an off-policy method evaluated on MuJoCo."
A2 = "We study image classification on ImageNet with ResNet."


def test_csv_headers_in_any_case(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(f'Title,ABSTRACT , Year\nOne,"{A1}",2024\n', encoding="utf-8")
    (paper,) = read_papers([path]).papers
    assert (paper.title, paper.abstract, paper.year) == ("One", A1, 2024)


def test_a_synonym_is_read_and_said(tmp_path, caplog):
    path = tmp_path / "p.csv"
    path.write_text(f'id,Summary\nx1,"{A1}"\nx2,"{A2}"\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="paperkg"):
        result = read_papers([path])
    assert [p.abstract for p in result.papers] == [A1, A2]
    said = [w for w in result.warnings if "'Summary' read as 'abstract'" in w]
    assert len(said) == 1 and said[0].startswith(f"{path}:1:")  # once per file, not per record
    assert any("'Summary' read as 'abstract'" in r.getMessage() for r in caplog.records)


def test_the_field_beats_its_synonym(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"abstract": A1, "summary": A2}) + "\n", encoding="utf-8")
    result = read_papers([path])
    assert [p.abstract for p in result.papers] == [A1] and result.warnings == []


def test_no_abstract_column_names_the_synonyms(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("title,body\nx,y\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"no 'abstract' column.*summary.*\(columns: title, body\)"):
        read_papers([path])


def test_a_json_array_of_records_with_lines(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"id": "a", "Abstract": A1}, 7, {"id": "b", "abstract": A2}], indent=1), encoding="utf-8")
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["a", "b"]
    assert [p.line for p in result.papers] == [2, 7]
    assert [(s.line, s.reason) for s in result.skipped] == [(6, "a JSON int, not an object")]


def test_json_one_record_and_json_lines_under_a_json_name(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"abstract": A1}), encoding="utf-8")
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps({"abstract": A1}) + "\n" + json.dumps({"abstract": A2}) + "\n", encoding="utf-8")
    assert len(read_papers([one]).papers) == 1
    result = read_papers([lines])
    assert len(result.papers) == 2 and any("read as JSON Lines" in w for w in result.warnings)


def test_a_broken_json_array_keeps_what_came_before(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('[{"abstract": "%s"},\n{"abstract": oops}]' % A1, encoding="utf-8")
    result = read_papers([path])
    assert len(result.papers) == 1 and result.skipped[0].line == 2
    assert "the rest of the array is not read" in result.skipped[0].reason


def test_gzipped_jsonl_and_csv_also_in_folders(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.jsonl.gz").write_bytes(gzip.compress((json.dumps({"abstract": A1}) + "\n").encode()))
    (tmp_path / "d" / "b.csv.gz").write_bytes(gzip.compress(f'abstract\n"{A2}"\n'.encode()))
    (tmp_path / "d" / "c.gz").write_bytes(gzip.compress(b"not a format"))
    assert [p.name for p in iter_input_files([tmp_path / "d"])] == ["a.jsonl.gz", "b.csv.gz"]
    assert [p.abstract for p in read_papers([tmp_path / "d"]).papers] == [A1, A2]


def test_a_file_that_is_not_gzip(tmp_path):
    path = tmp_path / "p.jsonl.gz"
    path.write_text("plain", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable gzip file"):
        read_papers([path])


@pytest.mark.parametrize("args", [["-q", "extract"], ["extract", "-q"], ["extract", "--all-warnings"],
                                  ["--all-warnings", "extract"]])
def test_global_options_before_or_after_the_subcommand(tmp_path, args):
    from click.testing import CliRunner

    from paperkg.cli import cli

    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"abstract": A1 + "\x07"}) + "\n", encoding="utf-8")
    before = args.index("extract") > 0
    argv = [*(args[:1] if before else []), "extract", str(path), "-o", str(tmp_path / "m.jsonl"), "--no-model",
            "--no-progress", *([] if before else args[1:])]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    warned = "removed or replaced" in result.output
    assert warned == ("-q" not in args)
