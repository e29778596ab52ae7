"""Issue 21 M12: files that are not UTF-8 (Excel's "Unicode text" is UTF-16 with a byte-order
mark) are decoded by their mark, and a header that still cannot be read says what is wrong."""

import pytest

from paperkg.errors import InputError
from paperkg.extract.read.readers import read_papers

CSV = "id,abstract\r\n1,We propose FooNet for image classification.\r\n2,We study BarNet 为 graphs.\r\n"
ABSTRACTS = ["We propose FooNet for image classification.", "We study BarNet 为 graphs."]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be", "utf-8-sig"])
@pytest.mark.parametrize("name", ["p.csv", "p.jsonl", "p.txt"])
def test_a_byte_order_mark_says_the_encoding(tmp_path, encoding, name):
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-be": b"\x00\x00\xfe\xff"}.get(encoding, b"")
    text = {"p.csv": CSV,
            "p.jsonl": "".join('{"id": "%d", "abstract": "%s"}\n' % (i, a) for i, a in enumerate(ABSTRACTS, 1)),
            "p.txt": "ICML 2024 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n"}[name]
    path = tmp_path / name
    path.write_bytes(bom + text.encode(encoding))
    result = read_papers([path])
    assert [p.abstract for p in result.papers] == ABSTRACTS
    assert result.warnings == [] and result.skipped == []


def test_utf16_without_a_mark_is_read_with_a_warning(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes("id,abstract\n1,We propose FooNet.\n".encode("utf-16-le"))
    result = read_papers([path])
    assert [p.abstract for p in result.papers] == ["We propose FooNet."]
    assert result.warnings == [f"{path}:1: no byte-order mark, but NUL bytes at every other position: read as "
                               "UTF-16-LE (save it as UTF-8 to silence this)"]


def test_a_broken_utf16_tail_is_a_warning_naming_its_line(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes("id,abstract\n1,We propose FooNet.\n2,We study BarNet.\n".encode("utf-16") + b"\x00")
    result = read_papers([path])
    assert [p.abstract for p in result.papers] == ["We propose FooNet.", "We study BarNet."]
    assert any(w.startswith(f"{path}:4: bytes that are not UTF-16-LE") for w in result.warnings)


def test_nul_bytes_in_a_header_say_so(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes(b"id\x00,abstract\x00\n1,We propose FooNet.\n")
    with pytest.raises(InputError) as info:
        read_papers([path])
    message = str(info.value)
    assert message.startswith(f"{path}:1: NUL bytes in the CSV header (columns: 'id\\x00', 'abstract\\x00'): "
                              "is this a UTF-16 file without a byte-order mark?")
    assert "\n" not in message and "\x00" not in message


def test_invisible_characters_in_a_header_are_shown(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes("id,ab\u200bstract\n1,We propose FooNet.\n".encode("utf-8"))
    with pytest.raises(InputError, match=r"columns: id, 'ab\\u200bstract'\); 1 column name\(s\) hold invisible"):
        read_papers([path])
