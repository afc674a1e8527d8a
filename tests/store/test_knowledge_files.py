from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from client.store.knowledge import files as knowledge_files
from client.store.knowledge.files import Unreadable, open_document, sniff_encoding, walk

CHINESE = "北京的烤鸭很好吃。\n我们住在王府井附近。\n"


def read(path: Path) -> tuple[str, list[tuple[int, str]]]:
    document = open_document(str(path))
    assert document is not None
    return document.encoding, list(document.lines())


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (CHINESE.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + CHINESE.encode("utf-8"), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + CHINESE.encode("utf-16-le"), "utf-16"),
        (codecs.BOM_UTF16_BE + CHINESE.encode("utf-16-be"), "utf-16"),
        (CHINESE.encode("gb18030"), "gb18030"),
    ],
)
def test_encodings_are_read_to_the_same_lines(tmp_path: Path, data: bytes, encoding: str) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(data)
    found, lines = read(path)
    assert found == encoding
    assert lines == [(1, "北京的烤鸭很好吃。"), (2, "我们住在王府井附近。")]


def test_binary_is_recognised() -> None:
    assert sniff_encoding(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") is None
    assert sniff_encoding(bytes(range(1, 32)) * 20) is None
    assert sniff_encoding("café au lait".encode("cp1252")) == "cp1252"


def test_binary_file_opens_as_none(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"ELF\x00\x01\x02" * 100)
    assert open_document(str(path)) is None


def test_a_huge_file_is_read_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(knowledge_files, "PIECE_BYTES", 7)  # pieces end inside characters
    path = tmp_path / "big.md"
    lines = [f"第{n}行 line {n}" for n in range(1, 400)]
    path.write_text("\r\n".join(lines), encoding="utf-8")
    reads: list[int] = []
    document = open_document(str(path))
    assert document is not None
    real_read = document._file.read  # type: ignore[union-attr]

    def counted(size: int = -1) -> bytes:
        reads.append(size)
        return real_read(size)

    document._file.read = counted  # type: ignore[union-attr,method-assign]
    assert [text for _n, text in document.lines()] == lines
    assert set(reads) == {7} and len(reads) > 100


def test_a_file_over_the_limit_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(knowledge_files, "MAX_FILE_BYTES", 1 << 20)
    path = tmp_path / "huge.log"
    path.write_bytes(b"a" * ((1 << 20) + 1))
    with pytest.raises(Unreadable, match="larger than 1 MB"):
        open_document(str(path))


def test_a_missing_file_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(Unreadable, match="cannot be read"):
        open_document(str(tmp_path / "gone.md"))


def test_html_gives_the_visible_text_with_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>T</title><style>p{}</style></head>\n<body>\n"
        "<p>Cat food &amp; dogs</p><script>var secret = 1</script>\n<p>Line three</p>\n",
        encoding="utf-8",
    )
    _encoding, lines = read(path)
    assert [(n, text.strip()) for n, text in lines] == [(3, "Cat food & dogs"), (4, "Line three")]


def test_walk_follows_links_but_not_loops(tmp_path: Path) -> None:
    (tmp_path / "notes" / "deep").mkdir(parents=True)
    (tmp_path / "notes" / "a.md").write_text("a")
    (tmp_path / "notes" / "deep" / "b.txt").write_text("b")
    (tmp_path / "notes" / "photo.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "notes" / ".hidden.md").write_text("h")
    (tmp_path / "notes" / "README").write_text("r")
    os.symlink(tmp_path / "notes", tmp_path / "notes" / "deep" / "loop")
    os.symlink(tmp_path / "notes" / "self", tmp_path / "notes" / "self")  # ELOOP
    os.symlink(tmp_path / "nowhere", tmp_path / "notes" / "dangling.md")
    found = walk(str(tmp_path / "notes"))
    names = sorted(os.path.relpath(f.path, tmp_path / "notes") for f in found.files)
    assert names == ["README", "a.md", "deep/b.txt"]
    assert found.unsupported == 1
    assert found.errors == []


def test_walk_of_a_missing_root_is_an_error(tmp_path: Path) -> None:
    found = walk(str(tmp_path / "missing"))
    assert found.files == [] and found.errors[0][0].endswith("missing")
    assert "no such file" in found.errors[0][1]


def test_pdf_pages_are_read_as_lines_numbered_by_page(tmp_path: Path) -> None:
    from tests.store.pdf_maker import make_pdf

    path = tmp_path / "trip.pdf"
    path.write_bytes(make_pdf(["Day one in Lisbon", "We stayed at the Hotel Granvia"]))
    document = open_document(str(path))
    assert document is not None and document.unit == "page"
    assert [(n, text.strip()) for n, text in document.lines()] == [
        (1, "Day one in Lisbon"),
        (2, "We stayed at the Hotel Granvia"),
    ]


def test_a_damaged_pdf_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nnot really")
    document = open_document(str(path))
    assert document is not None
    with pytest.raises(Unreadable, match="not a readable PDF"):
        list(document.lines())
