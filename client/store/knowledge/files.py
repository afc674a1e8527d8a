"""Reading the user's documents for the knowledge index: which files, in which encoding,
as numbered lines, read in pieces so a huge file never sits whole in memory.

Plain text, Markdown, reStructuredText and source code are read as text; HTML as the
text a browser shows (scripts and styles left out); PDF as its pages' text when the
optional `tachy[pdf]` extra (pypdf) is installed, a page standing for a line.

Encodings: a byte-order mark says UTF-8, UTF-16 or UTF-32; otherwise the first piece
is tried as UTF-8, then GB18030, then Windows-1252. A file with NUL bytes or mostly
control bytes (and no UTF-16/32 mark) is binary and skipped.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO

PIECE_BYTES = 1 << 20  # read 1 MiB at a time
LONG_LINE_CHARS = 1 << 20  # a line without a newline is handed on in parts this big
SNIFF_BYTES = 8192
MAX_FILE_BYTES = 64 << 20  # larger files are skipped, not truncated

TEXT_SUFFIXES = frozenset(
    """.txt .text .md .markdown .mdown .rst .adoc .org .tex .csv .tsv .log .ini .cfg .conf
    .toml .yaml .yml .json .xml .py .pyi .c .h .cc .cpp .hpp .cxx .rs .go .java .kt .kts
    .scala .swift .m .mm .cs .fs .js .jsx .mjs .ts .tsx .vue .svelte .rb .php .pl .pm .lua
    .r .jl .hs .ml .mli .ex .exs .erl .clj .el .lisp .scm .sh .bash .zsh .fish .ps1 .bat
    .sql .css .scss .less .proto .graphql .cmake .mk .gradle .dart .zig .nim .v .sv .vhd
    .tf .nix .ipynb""".split()
)
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
PDF_SUFFIXES = frozenset({".pdf"})
# Folders that hold tools' and packages' files, not the user's writing.
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")
_CONTROL_BYTES = bytes(byte for byte in range(32) if byte not in _TEXT_CONTROLS)


class Unreadable(Exception):
    """A file that could not be read; str() is the sentence for the user."""


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class WalkResult:
    files: list[FileEntry] = field(default_factory=list)
    unsupported: int = 0  # files of a type that is not text (images, archives ...)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, sentence)


def is_candidate(path: str) -> bool:
    """Worth opening: a known text, HTML or PDF suffix, or no suffix (README, Makefile)."""
    name = path.rpartition(os.sep)[2]
    dot = name.rfind(".")
    suffix = name[dot:].lower() if dot > 0 else ""
    if suffix in PDF_SUFFIXES:
        return pdf_supported()
    return not suffix or suffix in TEXT_SUFFIXES or suffix in HTML_SUFFIXES


def pdf_supported() -> bool:
    try:
        import pypdf  # noqa: F401
    except ImportError:
        return False
    return True


def walk(root: str) -> WalkResult:
    """Every candidate file under root (or root itself if it is a file). Hidden files
    and folders are left out; symbolic links are followed, but a folder already seen
    (a link loop, or two links to one place) is walked once."""
    result = WalkResult()
    seen: set[tuple[int, int]] = set()
    try:
        info = os.stat(root)
    except OSError as error:
        result.errors.append((root, _sentence(error)))
        return result
    if stat.S_ISDIR(info.st_mode):
        _walk_dir(root, info, seen, result)
    else:
        _add_file(root, info, result, explicit=True)
    return result


def _walk_dir(path: str, info: os.stat_result, seen: set[tuple[int, int]], out: WalkResult) -> None:
    key = (info.st_dev, info.st_ino)
    if key in seen:
        return
    seen.add(key)
    try:
        entries = sorted(os.scandir(path), key=lambda entry: entry.name)
    except OSError as error:
        out.errors.append((path, _sentence(error)))
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
            continue
        try:
            child = entry.stat()  # follows links; a loop raises ELOOP
        except OSError:
            continue  # a dangling link or a link loop: nothing to read
        if stat.S_ISDIR(child.st_mode):
            _walk_dir(entry.path, child, seen, out)
        elif stat.S_ISREG(child.st_mode):
            _add_file(entry.path, child, out, explicit=False)


def _add_file(path: str, info: os.stat_result, out: WalkResult, *, explicit: bool) -> None:
    if explicit or is_candidate(path):
        out.files.append(FileEntry(path, info.st_size, info.st_mtime_ns))
    else:
        out.unsupported += 1


def _sentence(error: OSError) -> str:
    reason = error.strerror or type(error).__name__
    return f"cannot be read ({reason.lower()})"


# ---- decoding --------------------------------------------------------------------


def sniff_encoding(head: bytes) -> str | None:
    """The encoding of a file starting with `head`, or None if it looks binary."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if b"\x00" in head:
        return None
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if head and controls / len(head) > 0.05:
        return None
    for name in ("utf-8", "gb18030"):
        try:
            codecs.getincrementaldecoder(name)().decode(head, final=False)
        except UnicodeDecodeError:
            continue
        return name
    return "cp1252"


@dataclass(slots=True)
class Document:
    """An opened document: iterate `lines()` once; `digest` is ready after that."""

    path: str
    encoding: str
    unit: str  # "line", or "page" for a PDF
    _file: BinaryIO | None
    _hash: hashlib.blake2b = field(default_factory=lambda: hashlib.blake2b(digest_size=16))

    @property
    def digest(self) -> str:
        return self._hash.hexdigest()

    def lines(self) -> Iterator[tuple[int, str]]:
        suffix = os.path.splitext(self.path)[1].lower()
        if self.unit == "page":
            yield from self._pdf_pages()
        elif suffix in HTML_SUFFIXES:
            yield from _html_lines(self._text_pieces())
        else:
            yield from _text_lines(self._text_pieces())

    def _raw_pieces(self) -> Iterator[bytes]:
        assert self._file is not None
        with self._file:
            while piece := self._file.read(PIECE_BYTES):
                self._hash.update(piece)
                yield piece

    def _text_pieces(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="replace")
        for piece in self._raw_pieces():
            yield decoder.decode(piece)
        yield decoder.decode(b"", final=True)

    def _pdf_pages(self) -> Iterator[tuple[int, str]]:
        import pypdf

        data = b"".join(self._raw_pieces())
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            for number, page in enumerate(reader.pages, start=1):
                for line in (page.extract_text() or "").splitlines():
                    yield number, line + " "
        except Exception as error:  # pypdf raises many kinds on a damaged file
            raise Unreadable(f"is not a readable PDF ({error})") from error


def open_document(path: str) -> Document | None:
    """The document at path, or None when it is binary. Raises Unreadable."""
    try:
        handle = open(path, "rb")  # closed by Document.lines(), or below
    except OSError as error:
        raise Unreadable(_sentence(error)) from error
    try:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(f"is larger than {MAX_FILE_BYTES >> 20} MB")
        if os.path.splitext(path)[1].lower() in PDF_SUFFIXES:
            return Document(path, "pdf", "page", handle)
        head = handle.read(SNIFF_BYTES)
        handle.seek(0)
    except Unreadable:
        handle.close()
        raise
    except OSError as error:
        handle.close()
        raise Unreadable(_sentence(error)) from error
    encoding = sniff_encoding(head)
    if encoding is None:
        handle.close()
        return None
    return Document(path, encoding, "line", handle)


def _text_lines(pieces: Iterator[str]) -> Iterator[tuple[int, str]]:
    number = 1
    pending = ""
    for piece in pieces:
        pending += piece
        *whole, pending = pending.split("\n")
        for line in whole:
            yield number, line.rstrip("\r")
            number += 1
        if len(pending) > LONG_LINE_CHARS:
            yield number, pending
            pending = ""
    if pending:
        yield number, pending.rstrip("\r")


class _HtmlText(HTMLParser):
    _HIDDEN = frozenset({"script", "style", "head", "template", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[tuple[int, str]] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        number = self.getpos()[0]
        for offset, line in enumerate(data.split("\n")):
            if line.strip():
                self.out.append((number + offset, line.strip() + " "))


def _html_lines(pieces: Iterator[str]) -> Iterator[tuple[int, str]]:
    parser = _HtmlText()
    for piece in pieces:
        parser.feed(piece)
        yield from parser.out
        parser.out.clear()
    parser.close()
    yield from parser.out


def display_path(path: str) -> str:
    """The path as the user would type it (home as ~)."""
    home = str(Path.home())
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path
