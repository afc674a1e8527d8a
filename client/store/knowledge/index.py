"""Reads and writes of the knowledge index (schema: client/store/knowledge/db.py).

One `KnowledgeIndex` owns one connection and a lock. The indexer and the searches
each open their own on the same file: WAL lets a search read while a folder is being
indexed. `search` takes a deadline and SQLite itself stops the query when it passes
(a progress handler), so a slow search costs its budget and no more.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from client.core.passages import Passage, choose_terms, fts_query, index_terms, query_terms
from client.store.db import write_transaction
from client.store.knowledge.db import connect, knowledge_path
from client.store.knowledge.files import FileEntry

PROGRESS_STEPS = 400  # SQLite VM steps between deadline checks (about 20 µs here)


class SearchTimedOut(TimeoutError):
    """The search passed its deadline and was stopped."""


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    unit: str  # "line" or "page"
    line_start: int
    line_end: int
    score: float  # bm25, sign flipped: higher is better
    tokens: int
    text: str


class KnownFile(NamedTuple):  # tuples: a poll builds one per file, 5,000 in ~2 ms
    id: int
    source_id: int
    size: int
    mtime_ns: int
    hash: str


class SkippedFile(NamedTuple):
    source_id: int
    size: int
    mtime_ns: int
    reason: str


@dataclass(frozen=True, slots=True)
class SourceInfo:
    path: str
    files: int
    passages: int
    skipped: int
    added_at: float


class KnowledgeIndex:
    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else knowledge_path()
        self._conn = connect(self.path)
        self._lock = threading.RLock()
        self._counts: dict[str, int] = {}  # see _document_counts
        self._counts_stamp: tuple[int, int] = (-1, -1)
        self._passages = 0

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, write_transaction(self._conn) as conn:
            yield conn

    # ---- sources ------------------------------------------------------------------

    def add_source(self, path: str) -> int:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO sources(path, added_at) VALUES (?, ?)", (path, time.time())
            )
            row = conn.execute("SELECT id FROM sources WHERE path = ?", (path,)).fetchone()
            return int(row[0])

    def source_ids(self) -> dict[str, int]:
        with self._lock:
            return dict(self._conn.execute("SELECT path, id FROM sources").fetchall())

    def sources(self) -> list[SourceInfo]:
        with self._lock:
            rows = self._conn.execute(
                """SELECT s.path, s.added_at,
                     (SELECT count(*) FROM files WHERE source_id = s.id),
                     (SELECT count(*) FROM passages JOIN files ON files.id = passages.file_id
                      WHERE files.source_id = s.id),
                     (SELECT count(*) FROM skipped WHERE source_id = s.id)
                   FROM sources AS s ORDER BY s.path"""
            ).fetchall()
        return [
            SourceInfo(path, files, passages, skipped, added)
            for path, added, files, passages, skipped in rows
        ]

    def remove_source(self, path: str) -> int | None:
        """Forget a source and everything found under it; None if it was not added.
        Returns how many files left the index."""
        with self.transaction() as conn:
            row = conn.execute("SELECT id FROM sources WHERE path = ?", (path,)).fetchone()
            if row is None:
                return None
            ids = [r[0] for r in conn.execute("SELECT id FROM files WHERE source_id = ?", row)]
            self._drop_passages(ids)
            conn.execute("DELETE FROM sources WHERE id = ?", row)  # cascades to files, skipped
            return len(ids)

    # ---- files --------------------------------------------------------------------

    def known_files(
        self, paths: list[str] | None = None
    ) -> tuple[dict[str, KnownFile], dict[str, SkippedFile]]:
        """(indexed files by path, skipped files by path): all, or only these paths."""
        if paths is not None:
            return self._known(paths)
        with self._lock:
            rows = self._conn.execute(
                "SELECT path, id, source_id, size, mtime_ns, hash FROM files"
            ).fetchall()
            files = dict(
                zip(
                    [row[0] for row in rows],
                    map(KnownFile._make, [row[1:] for row in rows]),
                    strict=True,
                )
            )
            rows = self._conn.execute(
                "SELECT path, source_id, size, mtime_ns, reason FROM skipped"
            ).fetchall()
            skipped = {row[0]: SkippedFile._make(row[1:]) for row in rows}
        return files, skipped

    def _known(self, paths: list[str]) -> tuple[dict[str, KnownFile], dict[str, SkippedFile]]:
        files: dict[str, KnownFile] = {}
        skipped: dict[str, SkippedFile] = {}
        with self._lock:
            for path in paths:
                row = self._conn.execute(
                    "SELECT id, source_id, size, mtime_ns, hash FROM files WHERE path = ?", (path,)
                ).fetchone()
                if row is not None:
                    files[path] = KnownFile._make(row)
                row = self._conn.execute(
                    "SELECT source_id, size, mtime_ns, reason FROM skipped WHERE path = ?", (path,)
                ).fetchone()
                if row is not None:
                    skipped[path] = SkippedFile._make(row)
        return files, skipped

    def store_file(
        self,
        source_id: int,
        entry: FileEntry,
        digest: str,
        encoding: str,
        unit: str,
        passages: Sequence[Passage],
    ) -> None:
        """Put a file's passages in the index, replacing what it had before."""
        with self.transaction() as conn:
            self._forget([entry.path])
            cursor = conn.execute(
                "INSERT INTO files(source_id, path, size, mtime_ns, hash, encoding, unit, "
                "indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    source_id,
                    entry.path,
                    entry.size,
                    entry.mtime_ns,
                    digest,
                    encoding,
                    unit,
                    time.time(),
                ),
            )
            file_id = cursor.lastrowid
            for passage in passages:
                rowid = conn.execute(
                    "INSERT INTO passages(file_id, line_start, line_end, tokens, text) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (file_id, passage.line_start, passage.line_end, passage.tokens, passage.text),
                ).lastrowid
                words, pairs = index_terms(passage.text)
                conn.execute(
                    "INSERT INTO passage_index(rowid, words, pairs) VALUES (?, ?, ?)",
                    (rowid, words, pairs),
                )

    def touch_file(self, entry: FileEntry) -> None:
        """The file was saved again with the same content: remember its new stat."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?",
                (entry.size, entry.mtime_ns, entry.path),
            )

    def mark_skipped(self, source_id: int, entry: FileEntry, reason: str) -> None:
        with self.transaction() as conn:
            self._forget([entry.path])
            conn.execute(
                "INSERT INTO skipped VALUES (?, ?, ?, ?, ?)",
                (entry.path, source_id, entry.size, entry.mtime_ns, reason),
            )

    def forget(self, paths: Iterable[str]) -> None:
        """Drop files (deleted, or no longer under any source) from the index."""
        with self.transaction():
            self._forget(list(paths))

    def skipped_reasons(self) -> list[tuple[str, str]]:
        with self._lock:
            return self._conn.execute("SELECT path, reason FROM skipped ORDER BY path").fetchall()

    def _forget(self, paths: list[str]) -> None:
        conn = self._conn
        for path in paths:
            row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
            if row is not None:
                self._drop_passages([row[0]])
                conn.execute("DELETE FROM files WHERE id = ?", row)
            conn.execute("DELETE FROM skipped WHERE path = ?", (path,))

    def _drop_passages(self, file_ids: list[int]) -> None:
        conn = self._conn
        for file_id in file_ids:
            rows = conn.execute("SELECT id, text FROM passages WHERE file_id = ?", (file_id,))
            for rowid, text in rows.fetchall():
                words, pairs = index_terms(text)
                conn.execute(
                    "INSERT INTO passage_index(passage_index, rowid, words, pairs) "
                    "VALUES ('delete', ?, ?, ?)",
                    (rowid, words, pairs),
                )
            conn.execute("DELETE FROM passages WHERE file_id = ?", (file_id,))

    # ---- search -------------------------------------------------------------------

    def search(self, question: str, k: int, deadline_ns: int | None = None) -> list[Hit]:
        """The k passages that best match the question, best first (bm25). Raises
        SearchTimedOut when time.perf_counter_ns() passes deadline_ns."""
        terms = query_terms(question)
        if not terms or k < 1:
            return []
        with self._lock:
            if deadline_ns is not None:
                self._conn.set_progress_handler(_past(deadline_ns), PROGRESS_STEPS)
            try:
                counts, passages = self._document_counts(terms)
                chosen = choose_terms(terms, counts, passages)
                if not chosen:
                    return []
                rows = self._conn.execute(_SEARCH, (fts_query(chosen), k)).fetchall()
            except sqlite3.OperationalError as error:
                if deadline_ns is not None and time.perf_counter_ns() >= deadline_ns:
                    raise SearchTimedOut("the search took longer than its budget") from error
                raise
            finally:
                self._conn.set_progress_handler(None, 0)
        return [
            Hit(path, unit, start, end, -rank, tokens, text)
            for path, unit, start, end, rank, tokens, text in rows
        ]

    def _document_counts(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many passages each term is in, and how many there are. Counting a term
        reads only its list of passages (about 0.2 ms for one in every passage of
        5,000 notes), ranking reads far more; counts are kept until the index changes."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        stamp = (version, self._conn.total_changes)
        if stamp != self._counts_stamp:
            self._counts.clear()
            self._counts_stamp = stamp
            self._passages = self._conn.execute("SELECT count(*) FROM passages").fetchone()[0]
        for term in terms:
            if term not in self._counts:
                self._counts[term] = self._conn.execute(
                    "SELECT count(*) FROM passage_index(?)", (fts_query([term]),)
                ).fetchone()[0]
        return self._counts, self._passages

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file (after a large write: the log would
        otherwise stay as big as everything written since the last one)."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def totals(self) -> tuple[int, int, int]:
        """(files, passages, skipped) over every source."""
        with self._lock:
            row = self._conn.execute(
                "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM passages), "
                "(SELECT count(*) FROM skipped)"
            ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])


# The inner query ranks on the index alone; the joins then touch only k rows.
_SEARCH = """
SELECT f.path, f.unit, p.line_start, p.line_end, r.rank, p.tokens, p.text
FROM (SELECT rowid, rank FROM passage_index WHERE passage_index MATCH ?
      ORDER BY rank LIMIT ?) AS r
JOIN passages AS p ON p.id = r.rowid
JOIN files AS f ON f.id = p.file_id
ORDER BY r.rank
"""


def _past(deadline_ns: int) -> Callable[[], int]:
    def check() -> int:
        return 1 if time.perf_counter_ns() >= deadline_ns else 0

    return check
