"""The user's knowledge base: folders and files they added, indexed for retrieval.

    kb = KnowledgeBase()                       # knowledge.sqlite3 in the data dir
    report = kb.add(["~/notes"], progress)     # blocking; await kb.add_async(...) in the app
    found = await kb.retrieve("Where did we stay in Kyoto?", k=5, budget_ms=50)

Indexing runs on one worker thread and searching on another, each with its own
connection (WAL: a search reads while a folder is indexed), so neither ever runs on
the caller's event loop. `watch()` polls the sources while the app runs: a poll stats
the files and reads only those whose size or time changed (see knowledge_indexer).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from client.services.knowledge.indexer import (
    IndexReport,
    ProgressCallback,
    sync_files,
    sync_source,
)
from client.services.knowledge.retrieval import Retrieval, search_within
from client.store.knowledge.db import KnowledgeUnavailable, knowledge_path
from client.store.knowledge.index import KnowledgeIndex, SourceInfo

__all__ = [
    "IndexReport",
    "KnowledgeBase",
    "KnowledgeUnavailable",
    "Retrieval",
    "SourceInfo",
    "normalize",
]

T = TypeVar("T")
WATCH_INTERVAL_S = 5.0
POLL_COST_FACTOR = 50  # a poll may take at most 2 % of the time between polls


def normalize(path: str | Path) -> str:
    """The form a source is stored under: absolute, ~ expanded, links kept (the user
    added the link's name, and that is what they will remove)."""
    return os.path.abspath(os.path.expanduser(str(path)))


class KnowledgeBase:
    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else knowledge_path()
        self._writer: KnowledgeIndex | None = None
        self._reader: KnowledgeIndex | None = None
        self._open_lock = threading.Lock()
        self._index_thread = ThreadPoolExecutor(1, thread_name_prefix="tachy-kb-index")
        self._search_thread = ThreadPoolExecutor(1, thread_name_prefix="tachy-kb-search")
        self._cancel = threading.Event()

    # ---- blocking calls (the command line; the app runs them through *_async) -----

    def add(
        self, paths: Iterable[str | Path], progress: ProgressCallback | None = None
    ) -> IndexReport:
        """Add sources and index them. A path that does not exist is reported in
        `unreadable` and not added."""
        writer = self._writer_index()
        report = IndexReport()
        for path in map(normalize, paths):
            if not os.path.exists(path):
                report.unreadable.append((path, "does not exist"))
                continue
            source_id = writer.add_source(path)
            report.merge(sync_source(writer, path, source_id, progress, self._cancel))
        if report.changed:
            writer.checkpoint()
        return report

    def refresh(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Bring every source up to date (new, changed and deleted files)."""
        writer = self._writer_index()
        report = IndexReport()
        for path, source_id in sorted(writer.source_ids().items()):
            report.merge(sync_source(writer, path, source_id, progress, self._cancel))
        if report.indexed > 100:
            writer.checkpoint()
        return report

    def update_files(self, paths: Iterable[str | Path]) -> IndexReport:
        """Re-index just these files (changed, new or deleted), not their folders."""
        return sync_files(self._writer_index(), [normalize(path) for path in paths])

    def remove(self, path: str | Path) -> int | None:
        """Forget a source; returns how many files left the index, None if unknown."""
        return self._writer_index().remove_source(normalize(path))

    def sources(self) -> list[SourceInfo]:
        if not self.exists():
            return []  # nothing added yet: not worth creating an index to say so
        return self._reader_index().sources()

    def search(self, question: str, k: int = 5, budget_ms: float | None = None) -> Retrieval:
        if not self.exists():
            return Retrieval([], 0.0)
        return search_within(self._reader_index, question, k, budget_ms, self._drop_later)

    def exists(self) -> bool:
        return self._reader is not None or self._writer is not None or self.path.exists()

    def open_for_search(self) -> None:
        """Open the search connection now (a few ms), not in the first question's budget."""
        if self.exists():
            self._reader_index()

    # ---- from the event loop ------------------------------------------------------

    async def add_async(
        self, paths: Iterable[str | Path], progress: ProgressCallback | None = None
    ) -> IndexReport:
        return await self._on(self._index_thread, self.add, list(paths), progress)

    async def refresh_async(self, progress: ProgressCallback | None = None) -> IndexReport:
        return await self._on(self._index_thread, self.refresh, progress)

    async def remove_async(self, path: str | Path) -> int | None:
        return await self._on(self._index_thread, self.remove, path)

    async def sources_async(self) -> list[SourceInfo]:
        return await self._on(self._search_thread, self.sources)

    async def open_for_search_async(self) -> None:
        await self._on(self._search_thread, self.open_for_search)

    async def retrieve(self, question: str, k: int = 5, budget_ms: float = 50.0) -> Retrieval:
        """The top passages within the budget. Past it (even when the search thread is
        busy), an empty Retrieval with timed_out set: the answer goes on without."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        future = loop.run_in_executor(
            self._search_thread, partial(self.search, question, k, budget_ms)
        )
        try:
            found = await asyncio.wait_for(asyncio.shield(future), budget_ms / 1000 + 0.01)
        except TimeoutError:
            return Retrieval([], (loop.time() - started) * 1000, timed_out=True)
        # The time the caller waited (thread hand-offs included), not only the search's.
        return replace(found, ms=(loop.time() - started) * 1000)

    async def watch(
        self,
        on_change: Callable[[IndexReport], None],
        interval_s: float = WATCH_INTERVAL_S,
    ) -> None:
        """Poll the sources until cancelled; on_change gets each report that changed
        something. Keep the task and cancel it on close. A poll costs a stat per file
        (5,000 files: 150-250 ms of the indexing thread here); the pause after one is
        at least POLL_COST_FACTOR times what it took, so polling a huge folder never
        takes more than a few per cent of a core."""
        pause = interval_s
        while True:
            await asyncio.sleep(pause)
            if not self.exists():
                continue  # nothing added yet: no index to open
            report = await self.refresh_async()
            # (a poll that indexed something took longer for that: it is not the cost)
            cost = 0.0 if report.changed else report.seconds
            pause = max(interval_s, cost * POLL_COST_FACTOR)
            if report.changed:
                on_change(report)

    def close(self) -> None:
        """Stop indexing at the next file, wait for the threads, close the files."""
        self._cancel.set()
        self._index_thread.shutdown(wait=True, cancel_futures=True)
        self._search_thread.shutdown(wait=True, cancel_futures=True)
        for index in (self._writer, self._reader):
            if index is not None:
                index.close()
        self._writer = self._reader = None

    # ---- internals ----------------------------------------------------------------

    def _writer_index(self) -> KnowledgeIndex:
        with self._open_lock:
            if self._writer is None:
                self._writer = KnowledgeIndex(self.path)
            return self._writer

    def _reader_index(self) -> KnowledgeIndex:
        with self._open_lock:
            if self._reader is None:
                self._reader = KnowledgeIndex(self.path)
            return self._reader

    def _drop_later(self, paths: list[str]) -> None:
        """Files a search found deleted: out of the index, on the indexing thread."""
        try:
            self._index_thread.submit(self.update_files, paths)
        except RuntimeError:
            pass  # closing: the next start's first poll drops them

    @staticmethod
    async def _on(thread: ThreadPoolExecutor, fn: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(thread, partial(fn, *args))
