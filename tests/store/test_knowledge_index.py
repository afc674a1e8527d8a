from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from client.core import passages as passages_module
from client.core.passages import Passage
from client.store.knowledge.db import KnowledgeUnavailable, connect
from client.store.knowledge.files import FileEntry
from client.store.knowledge.index import KnowledgeIndex, SearchTimedOut


def passage(text: str, line: int = 1) -> Passage:
    return Passage(line, line, text, len(text.split()))


@pytest.fixture
def index(tmp_path: Path) -> KnowledgeIndex:
    return KnowledgeIndex(tmp_path / "knowledge.sqlite3")


def store(index: KnowledgeIndex, source: int, path: str, *texts: str) -> None:
    items = [passage(text, n) for n, text in enumerate(texts, start=1)]
    index.store_file(source, FileEntry(path, 1, 1), "hash", "utf-8", "line", items)


def test_search_ranks_and_finds_chinese_and_english(index: KnowledgeIndex) -> None:
    source = index.add_source("/notes")
    store(index, source, "/notes/a.md", "The kyoto hotel was near the station", "Nothing else")
    store(index, source, "/notes/b.md", "北京的烤鸭很好吃", "Kyoto once")
    store(index, source, "/notes/c.md", "Berlin in winter")
    hits = index.search("Which hotel in Kyoto?", 5)
    assert [(h.path, h.line_start) for h in hits] == [("/notes/a.md", 1), ("/notes/b.md", 2)]
    assert hits[0].score > hits[1].score > 0
    assert [h.path for h in index.search("烤鸭", 5)] == ["/notes/b.md"]


def test_replacing_and_forgetting_a_file_leaves_no_stale_match(index: KnowledgeIndex) -> None:
    source = index.add_source("/notes")
    store(index, source, "/notes/a.md", "old words about zebras")
    store(index, source, "/notes/a.md", "new words about giraffes")
    assert index.search("zebras", 5) == []
    assert [h.text for h in index.search("giraffes", 5)] == ["new words about giraffes"]
    index.forget(["/notes/a.md"])
    assert index.search("giraffes", 5) == [] and index.totals() == (0, 0, 0)
    # The FTS index agrees with the tables (a wrong 'delete' would corrupt it).
    index._conn.execute(
        "INSERT INTO passage_index(passage_index, rank) VALUES ('integrity-check', 1)"
    )


def test_removing_a_source_drops_its_files(index: KnowledgeIndex) -> None:
    a = index.add_source("/a")
    b = index.add_source("/b")
    store(index, a, "/a/x.md", "alpha")
    store(index, b, "/b/y.md", "alpha")
    index.mark_skipped(a, FileEntry("/a/z.bin", 1, 1), "binary")
    assert index.remove_source("/a") == 1
    assert index.remove_source("/a") is None
    assert [h.path for h in index.search("alpha", 5)] == ["/b/y.md"]
    assert index.totals() == (1, 1, 0)


def test_a_search_past_its_deadline_is_stopped(index: KnowledgeIndex) -> None:
    source = index.add_source("/n")
    store(index, source, "/n/a.md", *(f"common word {n}" for n in range(2000)))
    with pytest.raises(SearchTimedOut):
        index.search("common word", 5, deadline_ns=time.perf_counter_ns() - 1)
    assert len(index.search("common word", 5, deadline_ns=time.perf_counter_ns() + 10**10)) == 5


def test_an_older_database_migrates_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.sqlite3"
    sqlite3.connect(path).close()  # version 0: a file from before the index existed
    conn = connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(KnowledgeUnavailable, match="newer Tachy"):
        connect(path)


def test_a_damaged_file_gets_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(KnowledgeUnavailable, match="damaged"):
        connect(path)


def test_an_index_of_older_terms_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "knowledge.sqlite3"
    index = KnowledgeIndex(path)
    source = index.add_source("/n")
    store(index, source, "/n/a.md", "東京タワー trip")
    index._conn.execute("UPDATE meta SET value = '0' WHERE key = 'terms_version'")
    index._conn.execute("INSERT INTO passage_index(passage_index) VALUES ('delete-all')")
    index.close()
    reopened = KnowledgeIndex(path)
    assert [h.path for h in reopened.search("東京", 5)] == ["/n/a.md"]
    version = reopened._conn.execute("SELECT value FROM meta").fetchone()[0]
    assert version == str(passages_module.TERMS_VERSION)
