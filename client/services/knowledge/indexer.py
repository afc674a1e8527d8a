"""Bringing the index up to date with a source folder: only what changed is read.

A file whose size and modification time are what the index has is not opened. A
changed one is read (in pieces) and hashed as it is cut into passages; if the hash is
the one stored, only its stat is updated, else its passages are replaced. Files gone
from the folder leave the index. Binary and unreadable files are remembered with
their stat, so they are not opened again until they change.

Blocking: run it on a worker thread (client/services/knowledge/knowledge.py does).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from client.core.passages import cut_passages
from client.store.knowledge.files import FileEntry, Unreadable, open_document, walk
from client.store.knowledge.index import KnowledgeIndex, KnownFile, SkippedFile

BINARY = "binary"
BATCH_SECONDS = 0.2  # commit at least this often, so searches see new files soon


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Reported after each file read: `done` of `total` files that need reading."""

    source: str
    done: int
    total: int
    path: str


@dataclass(slots=True)
class IndexReport:
    indexed: int = 0  # files read and (re)indexed
    unchanged: int = 0
    removed: int = 0
    binary: int = 0
    unsupported: int = 0  # not a text type (images, archives ...): never opened
    passages: int = 0  # passages written
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, sentence)
    seconds: float = 0.0
    cancelled: bool = False

    def merge(self, other: IndexReport) -> None:
        self.indexed += other.indexed
        self.unchanged += other.unchanged
        self.removed += other.removed
        self.binary += other.binary
        self.unsupported += other.unsupported
        self.passages += other.passages
        self.unreadable.extend(other.unreadable)
        self.seconds += other.seconds
        self.cancelled = self.cancelled or other.cancelled

    @property
    def changed(self) -> bool:
        return bool(self.indexed or self.removed)


ProgressCallback = Callable[[IndexProgress], None]


def sync_source(
    index: KnowledgeIndex,
    source: str,
    source_id: int,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> IndexReport:
    """Bring the index up to date with one source (see the module docstring)."""
    started = time.perf_counter()
    report = IndexReport()
    found = walk(source)
    report.unsupported = found.unsupported
    report.unreadable.extend(found.errors)
    known, skipped = index.known_files()
    seen = {entry.path for entry in found.files}
    gone = [p for p, f in known.items() if f.source_id == source_id and p not in seen]
    gone += [p for p, f in skipped.items() if f.source_id == source_id and p not in seen]
    # A source that cannot be read at all (a drive not mounted, a folder being moved)
    # keeps its index: only files missing from a folder that was read are gone.
    if gone and not any(path == source for path, _sentence in found.errors):
        index.forget(gone)
        report.removed = sum(1 for path in gone if path in known)
    to_read = _changed(found.files, known, skipped, report)
    _read_all(index, source, source_id, to_read, known, report, progress, cancel)
    report.seconds = time.perf_counter() - started
    return report


def sync_files(index: KnowledgeIndex, paths: list[str]) -> IndexReport:
    """Bring the index up to date with these files only (a file the user just saved,
    a file a search found deleted), without walking their folders. A path under no
    source is left alone."""
    started = time.perf_counter()
    report = IndexReport()
    sources = index.source_ids()
    known, skipped = index.known_files(paths)
    entries: dict[int, list[FileEntry]] = {}
    gone = []
    for path in paths:
        source_id = _owner(path, sources)
        if source_id is None:
            continue
        try:
            info = os.stat(path)
        except OSError:
            gone.append(path)
            continue
        entries.setdefault(source_id, []).append(FileEntry(path, info.st_size, info.st_mtime_ns))
    if gone:
        index.forget(gone)
        report.removed = sum(1 for path in gone if path in known)
    for source_id, group in entries.items():
        to_read = _changed(group, known, skipped, report)
        _read_all(index, "", source_id, to_read, known, report, None, None)
    report.seconds = time.perf_counter() - started
    return report


def _owner(path: str, sources: dict[str, int]) -> int | None:
    """The source a path is under (the innermost, when sources nest)."""
    best: tuple[int, int] | None = None
    for source, source_id in sources.items():
        if path == source or path.startswith(source.rstrip(os.sep) + os.sep):
            if best is None or len(source) > best[0]:
                best = (len(source), source_id)
    return None if best is None else best[1]


def _changed(
    entries: list[FileEntry],
    known: dict[str, KnownFile],
    skipped: dict[str, SkippedFile],
    report: IndexReport,
) -> list[FileEntry]:
    to_read = []
    for entry in entries:
        file = known.get(entry.path)
        if file is not None and (file.size, file.mtime_ns) == (entry.size, entry.mtime_ns):
            report.unchanged += 1
            continue
        earlier = skipped.get(entry.path)
        if earlier is not None and (earlier.size, earlier.mtime_ns) == (entry.size, entry.mtime_ns):
            _count_skip(report, entry.path, earlier.reason)
            continue
        to_read.append(entry)
    return to_read


def _count_skip(report: IndexReport, path: str, reason: str) -> None:
    if reason == BINARY:
        report.binary += 1
    else:
        report.unreadable.append((path, reason))


def _read_all(
    index: KnowledgeIndex,
    source: str,
    source_id: int,
    entries: list[FileEntry],
    known: dict[str, KnownFile],
    report: IndexReport,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
) -> None:
    pending = iter(enumerate(entries, start=1))
    while not report.cancelled:
        # One transaction per BATCH_SECONDS of reading: a commit per file would cost
        # more than most files take to read.
        with index.transaction():
            batch_started = time.perf_counter()
            for done, entry in pending:
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                _read_one(index, source_id, entry, known.get(entry.path), report)
                if progress is not None:
                    progress(IndexProgress(source, done, len(entries), entry.path))
                if time.perf_counter() - batch_started > BATCH_SECONDS:
                    break
            else:
                return


def _read_one(
    index: KnowledgeIndex,
    source_id: int,
    entry: FileEntry,
    known: KnownFile | None,
    report: IndexReport,
) -> None:
    try:
        document = open_document(entry.path)
        if document is None:
            index.mark_skipped(source_id, entry, BINARY)
            report.binary += 1
            return
        passages = list(cut_passages(document.lines()))
    except (Unreadable, OSError) as error:
        sentence = str(error) if isinstance(error, Unreadable) else _os_sentence(error)
        index.mark_skipped(source_id, entry, sentence)
        report.unreadable.append((entry.path, sentence))
        return
    if known is not None and known.hash == document.digest:
        index.touch_file(entry)
        report.unchanged += 1
        return
    index.store_file(source_id, entry, document.digest, document.encoding, document.unit, passages)
    report.indexed += 1
    report.passages += len(passages)


def _os_sentence(error: OSError) -> str:
    return f"cannot be read ({(error.strerror or type(error).__name__).lower()})"
