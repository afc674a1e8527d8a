"""Opening a long conversation and reading it before each send (issue 3, item 9).

Run with `pytest tests/perf/test_history_perf.py -s`. One SQLite file in a temp dir
holds a 10-message and a 2,000-message conversation (every 100th answer regenerated
once, every answer with its request metrics). Medians over interleaved rounds:

- open: what the ui needs to show a conversation: `active_path`, the metrics of the
  shown messages (`MetricsStore.for_messages`) and the version numbers (`versions`),
  from a fresh store (nothing cached). Goal: under 300 ms at 2,000 messages. Also
  reported (and held to the same goal): the ui's current way, `siblings` per answer.
- per send: `active_path` again after the last answer streamed (append + end state),
  as `turns.ask` does before every send. It must cost at most 3x the 10-message case
  plus 1 ms: a send's own work must stay far below a 16.7 ms frame, and 1 ms is what
  a few thousand Python operations cost on a loaded 2-core machine.
- first read: `active_path` with nothing cached. Reading 2,000 messages cannot be
  cheaper than selecting them by conversation and building their objects (the
  floor, measured in the same run); the walk along parent_id may cost at most 2.5x
  that floor plus 3x the 10-message case.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from client.core.metrics import RequestMetrics
from client.store.conversations.history import _MESSAGE_COLUMNS, HistoryStore, _message
from client.store.db import Database
from client.store.metrics_store import MetricsStore

pytestmark = pytest.mark.perf

ROUNDS = 15
ANSWER = "Some **bold** text and a list:\n\n- first point\n- second point\n\n" * 3


def fill(history: HistoryStore, metrics: MetricsStore, count: int) -> int:
    chat = history.create_conversation(f"{count} messages")
    parent = None
    with history.db.transaction():
        for n in range(count):
            if n % 2 == 0:
                parent = history.add_message(chat.id, "user", f"Question {n}?", parent_id=parent).id
                continue
            if n % 200 == 1:  # an older version beside this answer
                history.add_message(chat.id, "assistant", "old", parent_id=parent)
            answer = history.add_message(chat.id, "assistant", ANSWER, parent_id=parent)
            figures = RequestMetrics(ttft_ms=90.0, tpot_ms=12.0, e2el_ms=800.0, output_tokens=60)
            metrics.record(figures, server="s", model="m", outcome="complete", message_id=answer.id)
            parent = answer.id
    return chat.id


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def test_a_2000_message_conversation_opens_fast_and_sends_cheaply(tmp_path: Path) -> None:
    db = Database(tmp_path / "tachy.sqlite3")
    history, metrics = HistoryStore(db), MetricsStore(db)
    chats = {size: fill(history, metrics, size) for size in (10, 2000)}
    samples: dict[tuple[str, int], list[float]] = {}

    def sample(name: str, size: int, seconds: float) -> None:
        samples.setdefault((name, size), []).append(seconds)

    for _ in range(ROUNDS):
        for size, chat_id in chats.items():
            fresh = HistoryStore(db, recover=False)

            def open_chat(store: HistoryStore = fresh, chat_id: int = chat_id) -> None:
                path = store.active_path(chat_id)
                metrics.for_messages([m.id for m in path])
                store.versions(chat_id)

            def open_like_ui_today(chat_id: int = chat_id) -> None:
                store = HistoryStore(db, recover=False)
                path = store.active_path(chat_id)
                metrics.for_messages([m.id for m in path])
                for message in path:
                    if message.role == "assistant":
                        store.siblings(message.id)

            def floor(chat_id: int = chat_id) -> None:
                rows = db.query(
                    f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ?",
                    (chat_id,),
                )
                [_message(row) for row in rows]

            sample("open", size, timed(open_chat))
            sample("open, siblings per answer", size, timed(open_like_ui_today))

            def first_read(chat_id: int = chat_id) -> None:
                HistoryStore(db, recover=False).active_path(chat_id)

            sample("first read", size, timed(first_read))
            sample("floor", size, timed(floor))
            last = fresh.active_path(chat_id)[-1].id
            fresh.append_text(last, " more")  # the answer streamed and ended
            fresh.set_state(last, "complete")
            sample("per send", size, timed(partial(fresh.active_path, chat_id)))

    med = {key: median_ms(values) for key, values in samples.items()}
    print(f"\nhistory medians over {ROUNDS} rounds (ms), 10 messages -> 2,000 messages:")
    for name in ("open", "open, siblings per answer", "first read", "floor", "per send"):
        small, big = med[(name, 10)], med[(name, 2000)]
        print(f"  {name:27s} {small:8.3f} -> {big:8.3f}  (x{big / small:.1f})")
    fresh = HistoryStore(db, recover=False)
    assert len(fresh.active_path(chats[2000])) == 2000
    assert len(fresh.versions(chats[2000])) == 20  # 10 answers with 2 versions each
    assert med[("open", 2000)] < 300
    assert med[("open, siblings per answer", 2000)] < 300
    assert med[("per send", 2000)] <= 3 * med[("per send", 10)] + 1.0
    assert med[("first read", 2000)] <= 2.5 * med[("floor", 2000)] + 3 * med[("first read", 10)]
    db.close()
