import json

import pytest

from paperkg.errors import InputError
from paperkg.extract.read.readers import paper_id_for, parse_header, read_papers


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "header, expected",
    [("ICML 2024 Papers", ("ICML", 2024)), ("ICML 2024 论文列表", ("ICML", 2024)), ("NeurIPS 2023", ("NeurIPS", 2023))],
)
def test_header_in_both_languages(header, expected):
    assert parse_header(header) == expected


def test_seed_format_offsets_and_venue(tmp_path):
    path = write(tmp_path, "list.txt", "ICML 2024 论文列表\n\n  First abstract here.  \n\nSecond\nabstract.\n")
    result = read_papers([path])
    assert [p.abstract for p in result.papers] == ["First abstract here.", "Second\nabstract."]
    assert {(p.venue, p.year) for p in result.papers} == {("ICML", 2024)}
    assert [p.line for p in result.papers] == [3, 5]
    assert result.report().read == 2


def test_real_seed_lists(seeds_dir):
    result = read_papers([seeds_dir])
    assert len(result.papers) == 57
    assert {p.year for p in result.papers} == {2024}
    assert {p.venue for p in result.papers} == {"ICML"}
    assert all(p.title is None for p in result.papers)


def test_jsonl_fields_and_given_id(tmp_path):
    rows = [{"id": "abc", "title": "T", "abstract": "A study.", "venue": "ICLR", "year": "2024", "authors": ["X", "Y"]}]
    path = write(tmp_path, "p.jsonl", "\n".join(json.dumps(r) for r in rows))
    paper = read_papers([path]).papers[0]
    assert (paper.id, paper.title, paper.venue, paper.year, paper.authors) == ("abc", "T", "ICLR", 2024, ("X", "Y"))


def test_csv_same_columns(tmp_path):
    path = write(tmp_path, "p.csv", 'id,title,abstract,authors\n1,T,"We study, carefully.",A; B\n')
    paper = read_papers([path]).papers[0]
    assert (paper.id, paper.abstract, paper.authors) == ("1", "We study, carefully.", ("A", "B"))


def test_hash_id_is_stable_and_normalized():
    assert paper_id_for("We  propose X.") == paper_id_for("we propose x.")
    assert paper_id_for("We propose X.") != paper_id_for("We propose Y.")


def test_duplicates_collapse_and_are_reported(tmp_path):
    path = write(tmp_path, "d.txt", "ICML 2024 Papers\n\nSame text.\n\nsame   TEXT.\n\nOther text.\n")
    result = read_papers([path])
    assert len(result.papers) == 2
    assert len(result.skipped) == 1 and "duplicate abstract" in result.skipped[0].reason
    assert result.skipped[0].line == 5


class TestBadInput:
    def test_missing_path(self, tmp_path):
        with pytest.raises(InputError, match="no such file"):
            read_papers([tmp_path / "nope.txt"])

    def test_empty_file_names_file(self, tmp_path):
        path = write(tmp_path, "empty.txt", "")
        with pytest.raises(InputError, match="empty.txt: no abstracts found"):
            read_papers([path])

    def test_header_only_warns(self, tmp_path):
        good = write(tmp_path, "good.txt", "ICML 2024 Papers\n\nAn abstract.\n")
        bare = write(tmp_path, "bare.txt", "ICML 2024 Papers\n")
        result = read_papers([good, bare])
        assert any("bare.txt:1: file has a header but no abstracts" in w for w in result.warnings)

    def test_non_utf8_names_line_and_keeps_record(self, tmp_path):
        path = write(tmp_path, "bad.jsonl", b'{"abstract": "ok one"}\n{"abstract": "bad \xff byte"}\n', mode="wb")
        result = read_papers([path])
        assert len(result.papers) == 2
        assert any("bad.jsonl:2: invalid UTF-8 byte 0xff" in w for w in result.warnings)

    def test_jsonl_not_json_and_missing_abstract(self, tmp_path):
        path = write(tmp_path, "x.jsonl", '{"abstract": "fine"}\nnot json\n{"title": "no abstract"}\n')
        result = read_papers([path])
        reasons = {(s.line, s.reason.split(" (")[0]) for s in result.skipped}
        assert reasons == {(2, "not valid JSON"), (3, "no 'abstract' field")}
        report = result.report()
        assert report.read == report.written + len(report.skipped) == 3

    def test_huge_abstract_skipped_with_reason(self, tmp_path):
        path = write(tmp_path, "big.jsonl", json.dumps({"abstract": "x" * 1_000_000}) + "\n" + json.dumps({"abstract": "small"}) + "\n")
        result = read_papers([path])
        assert [p.abstract for p in result.papers] == ["small"]
        assert "1,000,000 characters" in result.skipped[0].reason

    def test_markup_is_kept_verbatim(self, tmp_path):
        text = "We propose **FedX** with $\\ell_0$ and <b>bold</b> text."
        path = write(tmp_path, "m.jsonl", json.dumps({"abstract": text}) + "\n")
        assert read_papers([path]).papers[0].abstract == text

    def test_unsupported_suffix(self, tmp_path):
        path = write(tmp_path, "x.pdf", "x")
        with pytest.raises(InputError, match="unsupported file type '.pdf'"):
            read_papers([path])


def test_the_unlabeled_abstracts_warn_a_few_per_kind_then_count(shared_data, tmp_path, caplog):
    """The 87k unlabeled abstracts have ~95 records with control or zero-width characters: the
    first SHOWN_PER_KIND of each kind are printed, then one line per kind with the count; every
    warning is kept in the result (and logged at INFO: `paperkg --all-warnings`, tested below)."""
    import gzip
    import logging
    import re
    import shutil

    from paperkg.extract.read.readers import SHOWN_PER_KIND

    source = tmp_path / "unlabeled.jsonl"
    with gzip.open(shared_data / "unlabeled" / "abstracts.jsonl.gz", "rb") as packed, open(source, "wb") as plain:
        shutil.copyfileobj(packed, plain)
    with caplog.at_level(logging.WARNING, logger="paperkg"):
        result = read_papers([source])
    cleaned = [w for w in result.warnings if "removed or replaced" in w]
    controls = [w for w in cleaned if "control character" in w.replace("bidi control character", "")]
    assert len(controls) > 4 * SHOWN_PER_KIND  # the flood this is about
    printed = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(printed) <= 2 * (SHOWN_PER_KIND + 1) < len(cleaned)
    assert [m for m in printed if m in controls] == controls[:SHOWN_PER_KIND]
    summary = [m for m in printed if " in all; " in m]
    assert len(summary) == 1 and summary[0].startswith(f"{source}: {len(controls):,} records with ")
    chars = sum(int(n) for w in controls for n in re.findall(r"(\d+) control characters?(?!\w)", w))
    assert f"{chars:,} control characters removed or replaced in all" in summary[0]
    assert "paperkg --all-warnings" in summary[0]
    # nothing lost: the result keeps every warning, and the summaries count every hidden one
    assert result.warnings == cleaned
    hidden = [w for w in cleaned if w not in printed]
    assert hidden and set(hidden) <= set(controls)


def test_cli_prints_the_first_warnings_of_a_kind_or_all(tmp_path):
    import subprocess
    import sys

    path = write(tmp_path, "a.jsonl", "".join(
        json.dumps({"id": f"p{i}", "abstract": f"Paper {i} proposes Net{i}\u200b on MNIST."}) + "\n" for i in range(8)))
    raw = write(tmp_path, "b.txt", b"Some abstract \xff one.\n\nAnother \xfe two.\n", mode="wb")

    def warnings(*flags):
        cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", *flags, "extract", str(path), str(raw),
               "--output", str(tmp_path / "m.jsonl"), "--no-model", "--no-progress"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return [line for line in done.stderr.splitlines() if line.startswith("warning: ")]

    default, every = warnings(), warnings("--all-warnings")
    cleaned = [w for w in default if "removed or replaced 1 zero-width" in w]
    assert [w.split(":")[2] for w in cleaned] == ["1", "2", "3", "4", "5"]
    assert f"warning: {path}: 8 records with 8 zero-width or bidi control characters removed or replaced in all; " \
           "the first 5 are listed above (paperkg --all-warnings lists every one)" in default
    assert len([w for w in every if "removed or replaced 1 zero-width" in w]) == 8
    assert not [w for w in every if " in all; " in w]
    assert len([w for w in default if "invalid UTF-8" in w]) == 2  # under the limit: no summary


def test_skipped_records_print_five_per_kind_then_a_count_and_keep_every_one(tmp_path, caplog):
    import logging

    lines = [json.dumps({"id": f"p{i}", "abstract": f"Paper {i} proposes Net{i} on MNIST."}) for i in range(3)]
    lines += ["{not json" for _ in range(9)] + [json.dumps({"id": f"e{i}"}) for i in range(2)]
    path = write(tmp_path, "broken.jsonl", "\n".join(lines) + "\n")
    with caplog.at_level(logging.WARNING, logger="paperkg"):
        result = read_papers([path])
    assert len(result.papers) == 3 and len(result.skipped) == 11  # nothing lost
    printed = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    bad_json = [m for m in printed if ": skipped: not valid JSON" in m]
    assert [m.split(":")[1] for m in bad_json] == ["4", "5", "6", "7", "8"]
    assert f"{path}: 9 records skipped (not valid JSON) in all; the first 5 are listed above " \
           "(paperkg --all-warnings lists every one)" in printed
    # two of another kind: both printed, no count line for them
    assert len([m for m in printed if "skipped: no 'abstract' field" in m]) == 2
    assert len([m for m in printed if " in all; " in m]) == 1
