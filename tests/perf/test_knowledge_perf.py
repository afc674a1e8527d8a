"""The knowledge index on 5,000 generated notes, English and Chinese (issue 14, item 5).

Run with `pytest tests/perf/test_knowledge_perf.py -s`. The corpus and its labelled
questions are tests/perf/knowledge_corpus.py. Measured and printed:

- full indexing of the folder (files/s), beside a baseline measured in the same run:
  reading every file and putting its whole text in a bare FTS5 table (one row per
  file, no passages, no character pairs, one transaction). At most 12x that (about
  7x on this loaded 2-core VM).
- search: P50 / P95 over the labelled questions, each asked twice (cold and warm
  pages both count). Goal P95 < 20 ms.
- re-indexing one changed file: `update_files([path])` after one note was edited.
  Median of 7. Goal under 100 ms. Also the poll that finds it (`refresh()`, what the
  watcher does every few seconds: it stats all 5,000 files and reads the one), against
  its floor measured in the same rounds, a bare stat of every file: at most 6x + 10 ms
  (about 3.5x here: the rest is Python's work per file, and the index's list of files).
- database size beside the corpus size (at most 3x: the text is stored once, beside
  its index).
- retrieval quality: recall@5 over the labelled questions, at least 0.9; the
  Chinese third of them at least 0.85 (0.91 when written: a question naming two key
  words that fell in different passages of a long note can miss).

A timing goal is judged on rounds the hypervisor left alone (tests/machine.py); with
too few of them, the rounds are taken again.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.services.knowledge.knowledge import KnowledgeBase
from tests.machine import StealMeter
from tests.perf.knowledge_corpus import Question, write_corpus

pytestmark = pytest.mark.perf

DOCUMENTS = int(os.environ.get("TACHY_KB_BENCH_DOCS", "5000"))
SEARCH_P95_GOAL_MS = 20.0
REINDEX_GOAL_MS = 100.0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Question]]:
    folder = tmp_path_factory.mktemp("kb-corpus") / "notes"
    return folder, write_corpus(folder, DOCUMENTS)


@pytest.fixture(scope="module")
def indexed(
    corpus: tuple[Path, list[Question]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[KnowledgeBase, float]]:
    folder, _questions = corpus
    kb = KnowledgeBase(tmp_path_factory.mktemp("kb-data") / "knowledge.sqlite3")
    started = time.perf_counter()
    report = kb.add([folder])
    seconds = time.perf_counter() - started
    assert report.indexed == DOCUMENTS and not report.unreadable
    yield kb, seconds
    kb.close()


def plain_fts_index(folder: Path, database: Path) -> None:
    """The baseline: each file's whole text, read and put in a bare FTS5 table."""
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE VIRTUAL TABLE plain USING fts5(text)")
    conn.execute("BEGIN")
    with os.scandir(folder) as entries:
        for entry in entries:
            text = Path(entry.path).read_text(encoding="utf-8")
            conn.execute("INSERT INTO plain(text) VALUES (?)", (text,))
    conn.execute("COMMIT")
    conn.close()


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def test_full_indexing_against_a_bare_fts_table(
    corpus: tuple[Path, list[Question]],
    indexed: tuple[KnowledgeBase, float],
    tmp_path: Path,
) -> None:
    folder, _questions = corpus
    _kb, index_s = indexed
    plain_s = _timed(lambda: plain_fts_index(folder, tmp_path / "plain.sqlite3"))
    ratio = index_s / plain_s
    print(
        f"\nfull indexing: {DOCUMENTS} files in {index_s:.2f} s "
        f"({DOCUMENTS / index_s:.0f} files/s); a bare FTS5 table of the same files: "
        f"{plain_s:.2f} s; ratio {ratio:.1f}x (bound 12x)"
    )
    assert ratio < 12


def test_search_p95_under_20_ms(
    corpus: tuple[Path, list[Question]], indexed: tuple[KnowledgeBase, float]
) -> None:
    _folder, questions = corpus
    kb, _seconds = indexed
    for _attempt in range(3):
        steal = StealMeter()
        samples = [kb.search(question.text).ms for _round in range(2) for question in questions]
        if steal.quiet():
            break
    p50, p95 = statistics.median(samples), percentile(samples, 95)
    print(
        f"\nsearch: n={len(samples)} P50 {p50:.2f} ms, P95 {p95:.2f} ms "
        f"(goal P95 < {SEARCH_P95_GOAL_MS:.0f} ms), max {max(samples):.2f} ms"
    )
    assert p95 < SEARCH_P95_GOAL_MS


def stat_everything(folder: Path) -> int:
    """The floor of a poll: one stat per file, nothing else."""
    with os.scandir(folder) as entries:
        return sum(entry.stat().st_size for entry in entries)


def test_reindexing_one_changed_file_under_100_ms(
    corpus: tuple[Path, list[Question]], indexed: tuple[KnowledgeBase, float]
) -> None:
    folder, _questions = corpus
    kb, _seconds = indexed
    note = folder / "note00001.md"
    original = note.read_text(encoding="utf-8")
    one: list[float] = []
    poll: list[float] = []
    floor: list[float] = []
    for round_number in range(7):
        note.write_text(original + f"\nEdited {round_number}: zanzibar{round_number}\n")
        one.append(_timed(lambda: kb.update_files([note])) * 1000)
        note.write_text(original + f"\nEdited again {round_number}: zanzibar{round_number}\n")
        started = time.perf_counter()
        report = kb.refresh()
        poll.append((time.perf_counter() - started) * 1000)
        assert (report.indexed, report.unchanged) == (1, DOCUMENTS - 1)
        floor.append(_timed(lambda: stat_everything(folder)) * 1000)
    hits = kb.search("zanzibar6").passages
    assert [Path(hit.path).name for hit in hits] == ["note00001.md"]
    one_ms, poll_ms, floor_ms = (statistics.median(s) for s in (one, poll, floor))
    print(
        f"\nre-index one changed file: median {one_ms:.1f} ms (goal < {REINDEX_GOAL_MS:.0f} ms); "
        f"a poll of all {DOCUMENTS} files finding it: {poll_ms:.1f} ms, "
        f"{poll_ms / floor_ms:.1f}x the {floor_ms:.1f} ms of stat-ing them (bound 6x + 10 ms)"
    )
    assert one_ms < REINDEX_GOAL_MS
    assert poll_ms < 6 * floor_ms + 10


def test_database_size(
    corpus: tuple[Path, list[Question]], indexed: tuple[KnowledgeBase, float]
) -> None:
    folder, _questions = corpus
    kb, _seconds = indexed
    corpus_bytes = sum(entry.stat().st_size for entry in os.scandir(folder))
    wal = Path(f"{kb.path}-wal")
    log = wal.stat().st_size if wal.exists() else 0
    kb._writer_index().checkpoint()  # the log is folded in at SQLite's next checkpoint
    database = kb.path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    ratio = database / corpus_bytes
    print(
        f"\ndatabase: {database / 1e6:.1f} MB (before the checkpoint, +{log / 1e6:.1f} MB log) "
        f"for a {corpus_bytes / 1e6:.1f} MB corpus "
        f"({ratio:.2f}x, bound 3x)"
    )
    assert ratio < 3


def test_recall_at_5_on_the_labelled_questions(
    corpus: tuple[Path, list[Question]], indexed: tuple[KnowledgeBase, float]
) -> None:
    _folder, questions = corpus
    kb, _seconds = indexed
    found = {
        question: [Path(hit.path).name for hit in kb.search(question.text, k=5).passages]
        for question in questions
    }
    recall = sum(q.answer in names for q, names in found.items()) / len(questions)
    chinese = [q for q in questions if q.chinese]
    recall_zh = sum(q.answer in found[q] for q in chinese) / len(chinese)
    first = sum(names[:1] == [q.answer] for q, names in found.items()) / len(questions)
    print(
        f"\nrecall@5 {recall:.3f} over {len(questions)} questions (Chinese {recall_zh:.3f} "
        f"over {len(chinese)}); right document first: {first:.3f}"
    )
    assert recall >= 0.9
    assert recall_zh >= 0.85


def _timed(fn: object) -> float:
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started
