from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.services.knowledge import indexer as knowledge_indexer
from client.services.knowledge.indexer import IndexProgress
from client.services.knowledge.knowledge import KnowledgeBase
from client.store.knowledge.files import WalkResult


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    knowledge = KnowledgeBase(tmp_path / "data" / "knowledge.sqlite3")
    yield knowledge
    knowledge.close()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kyoto.md").write_text("# Kyoto\n\nWe stayed at the Hotel Granvia.\n")
    (folder / "beijing.txt").write_text(
        "北京的烤鸭很好吃。\n我们住在王府井附近。\n", encoding="gb18030"
    )
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (folder / "data.txt").write_bytes(b"\x00\x01\x02binary" * 50)
    return folder


def paths(kb: KnowledgeBase, question: str) -> list[str]:
    return [os.path.basename(hit.path) for hit in kb.search(question).passages]


def test_add_indexes_text_and_counts_what_it_skipped(kb: KnowledgeBase, notes: Path) -> None:
    seen: list[IndexProgress] = []
    report = kb.add([notes], seen.append)
    assert (report.indexed, report.binary, report.unsupported, report.unreadable) == (2, 1, 1, [])
    assert [p.done for p in seen] == [1, 2, 3] and {p.total for p in seen} == {3}
    assert paths(kb, "Where did we stay in Kyoto?") == ["kyoto.md"]
    assert paths(kb, "北京烤鸭") == ["beijing.txt"]
    [source] = kb.sources()
    assert (source.path, source.files, source.skipped) == (str(notes), 2, 1)


def test_indexing_again_reads_only_what_changed(kb: KnowledgeBase, notes: Path) -> None:
    kb.add([notes])
    again = kb.refresh()
    assert (again.indexed, again.unchanged, again.binary) == (0, 2, 1)
    kyoto = notes / "kyoto.md"
    os.utime(kyoto, ns=(time.time_ns(), time.time_ns() + 10**9))  # saved, same text
    touched = kb.refresh()
    assert (touched.indexed, touched.unchanged) == (0, 2)
    kyoto.write_text("# Kyoto\n\nWe stayed at the Ryokan Kinoe.\n")
    changed = kb.refresh()
    assert (changed.indexed, changed.unchanged) == (1, 1)
    assert paths(kb, "Granvia") == [] and paths(kb, "Ryokan") == ["kyoto.md"]


def test_deleted_files_leave_the_answers_at_once_and_the_index_soon(
    kb: KnowledgeBase, notes: Path
) -> None:
    kb.add([notes])
    (notes / "kyoto.md").unlink()
    found = kb.search("Kyoto hotel")
    assert found.passages == [] and found.missing == [str(notes / "kyoto.md")]
    kb._index_thread.submit(lambda: None).result()  # the drop queued by the search ran
    assert kb.sources()[0].files == 1
    (notes / "beijing.txt").unlink()
    assert kb.refresh().removed == 1 and kb.sources()[0].files == 0


def test_an_unmounted_source_keeps_its_index(
    kb: KnowledgeBase, notes: Path, tmp_path: Path
) -> None:
    kb.add([notes])
    notes.rename(tmp_path / "elsewhere")
    report = kb.refresh()
    assert report.removed == 0 and report.unreadable[0][0] == str(notes)
    assert kb.sources()[0].files == 2


def test_a_file_that_vanishes_while_indexing_is_reported(
    kb: KnowledgeBase, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_walk = knowledge_indexer.walk

    def walk_then_delete(root: str) -> WalkResult:
        found = real_walk(root)
        (notes / "kyoto.md").unlink()
        return found

    monkeypatch.setattr(knowledge_indexer, "walk", walk_then_delete)
    report = kb.add([notes])
    assert report.indexed == 1
    assert [(os.path.basename(p), s) for p, s in report.unreadable] == [
        ("kyoto.md", "cannot be read (no such file or directory)")
    ]


def test_missing_path_and_removal(kb: KnowledgeBase, notes: Path, tmp_path: Path) -> None:
    report = kb.add([tmp_path / "nope", notes])
    assert report.unreadable == [(str(tmp_path / "nope"), "does not exist")]
    assert kb.remove(tmp_path / "nope") is None
    assert kb.remove(notes) == 2
    assert kb.sources() == [] and paths(kb, "Kyoto") == []


async def test_retrieval_is_bounded_by_its_budget(kb: KnowledgeBase, notes: Path) -> None:
    await kb.add_async([notes])
    found = await kb.retrieve("Kyoto hotel", budget_ms=60_000)
    assert [os.path.basename(h.path) for h in found.passages] == ["kyoto.md"]
    assert found.as_event()["passages"][0]["line_start"] == 1
    late = await kb.retrieve("Kyoto hotel", budget_ms=0)
    assert late.timed_out and late.passages == []
    assert "answered without them" in late.notice()


async def test_indexing_a_folder_never_blocks_the_loop(kb: KnowledgeBase, tmp_path: Path) -> None:
    """The indexing waits, mid-folder, for the loop to answer: it ends only if the loop
    runs while the folder is indexed (tests/perf times the loop's gaps)."""
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(400):
        (folder / f"n{n}.md").write_text(f"note {n} " + "lorem ipsum dolor " * 200)
    indexing, loop_ran = threading.Event(), threading.Event()

    def progress(step: IndexProgress) -> None:
        if step.done == 200:
            indexing.set()
            assert loop_ran.wait(60), "the loop did not run while the folder was indexed"

    adding = asyncio.create_task(kb.add_async([folder], progress))
    assert await asyncio.to_thread(indexing.wait, 60)
    assert not adding.done()
    loop_ran.set()
    report = await adding
    assert report.indexed == 400


async def test_watch_picks_up_a_new_file(kb: KnowledgeBase, notes: Path) -> None:
    await kb.add_async([notes])
    changes: asyncio.Queue[object] = asyncio.Queue()
    watcher = asyncio.create_task(kb.watch(changes.put_nowait, interval_s=0.05))
    (notes / "lisbon.md").write_text("Lisbon trams are yellow.")
    report = await asyncio.wait_for(changes.get(), 60)
    watcher.cancel()
    assert report.indexed == 1  # type: ignore[attr-defined]
    assert paths(kb, "yellow trams") == ["lisbon.md"]
