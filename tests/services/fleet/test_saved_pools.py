"""Saved pools round-trip through the settings; a damaged entry is skipped; a pool is
checked before it is saved; `--pool URL,URL` makes an unsaved pool; a pool is listed in
the server picker as a choice of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.services.fleet.book import DEFAULT_HEDGE_MS, FleetBook
from client.services.fleet.order import order
from client.services.fleet.pool import (
    Policy,
    PoolMember,
    ServerPool,
    parse_policy,
    pool_choice,
    pool_from_urls,
    pool_name,
)
from client.services.fleet.saved_pools import SavedPools
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import open_stores

A = PoolMember(ServerChoice("Box A", "http://10.0.0.1:11434", "ollama", "Box A"))
B = PoolMember(ServerChoice("Box B", "http://10.0.0.2:8000", "openai", "Box B"), "smollm2")


def test_round_trip_rename_remove_and_damage(tmp_path: Path) -> None:
    stores = open_stores(tmp_path / "t.sqlite3")
    saved = SavedPools(stores)
    pool = ServerPool("Boxes", (A, B), Policy.HEDGED, "smollm2:135m", tied=True)
    saved.save(pool)
    assert SavedPools(stores).all() == [pool]
    renamed = ServerPool("GPU boxes", (B, A), Policy.LEAST_LOADED)
    saved.save(renamed, old_name="Boxes")
    assert SavedPools(stores).all() == [renamed]
    stores.settings.set("pools", [*stores.settings.get("pools"), {"name": "x"}, 7])
    assert SavedPools(stores).all() == [renamed]  # the damaged ones are skipped
    assert saved.remove("GPU boxes") and SavedPools(stores).all() == []
    stores.close()


def test_a_pool_is_checked_before_it_is_saved() -> None:
    saved = SavedPools(None)  # this run only
    with pytest.raises(ValueError, match="two servers"):
        saved.save(ServerPool("One", (A,)))
    with pytest.raises(ValueError, match="twice"):
        saved.save(ServerPool("Twice", (A, A)))
    with pytest.raises(ValueError, match="name"):
        saved.save(ServerPool(" ", (A, B)))
    saved.save(ServerPool("Both", (A, B)))
    saved.save(ServerPool("Other", (B, A)))
    with pytest.raises(ValueError, match="already called"):
        saved.save(ServerPool("Both", (B, A)), old_name="Other")
    assert [p.name for p in saved.all()] == ["Both", "Other"]


def test_addresses_make_a_pool_and_a_pool_is_a_picker_choice() -> None:
    pool = pool_from_urls("127.0.0.1:8001, http://127.0.0.1:8002#other", Policy.HEDGED, "auto")
    assert [(m.choice.url, m.model) for m in pool.members] == [
        ("http://127.0.0.1:8001", ""),
        ("http://127.0.0.1:8002", "other"),
    ]
    with pytest.raises(ValueError, match="two servers"):
        pool_from_urls("127.0.0.1:8001", Policy.FAILOVER, "auto")
    assert parse_policy("Least-Loaded") is Policy.LEAST_LOADED
    with pytest.raises(ValueError, match="failover, least-loaded, hedged"):
        parse_policy("random")
    choice = pool_choice(ServerPool("Boxes", (A, B)))
    assert pool_name(choice) == "Boxes" and pool_name(A.choice) is None


def test_the_order_of_each_policy() -> None:
    book = FleetBook(["a", "b", "c"])
    assert order(Policy.FAILOVER, book, [5.0, 0.0, 1.0]) == [0, 1, 2]
    assert order(Policy.LEAST_LOADED, book, [5.0, 0.0, 1.0]) == [1, 2, 0]
    book.sent(1)
    book.sent(1)  # Tachy's own requests in flight count too
    assert order(Policy.LEAST_LOADED, book, [5.0, 0.0, 1.0]) == [2, 1, 0]
    book.failed(2)  # a failed server goes last while unhealthy
    assert order(Policy.LEAST_LOADED, book, [5.0, 0.0, 1.0]) == [1, 0, 2]
    assert order(Policy.FAILOVER, book, [None, None, None]) == [0, 1, 2]


def test_the_hedge_waits_for_the_p95_and_cut_requests_count_as_the_slowest() -> None:
    book = FleetBook(["a", "b"])
    assert book.hedge_after_ms(0) == DEFAULT_HEDGE_MS  # nothing known yet
    for ms in range(1, 21):
        book.first_token(1, float(ms))
    assert book.hedge_after_ms(0) == pytest.approx(19.05)  # the pool's, until its own
    for ms in range(1, 21):
        book.first_token(0, float(ms * 10))
    before, order_before = book.hedge_after_ms(0), book.p95_wait_ms(0)
    book.cut_short(0, 5000.0, at_ns=0)  # not its wait: the slowest real one
    assert before < book.hedge_after_ms(0) <= 200.0
    # Which goes first reads the same P95: a server that loses goes first less.
    assert order_before is not None and book.p95_wait_ms(0) > order_before
    assert [f.n for f in book.figures()] == [20, 20]  # the figures shown: real ones only


def test_one_real_stall_does_not_make_every_cut_request_count_as_it() -> None:
    book = FleetBook(["a", "b"])
    for _ in range(40):
        book.first_token(0, 60.0)
    book.first_token(0, 2000.0)  # its hedge stalled too: a real 2 s first token
    for _ in range(3):
        book.cut_short(0, 150.0, at_ns=0)  # hedged stalls: cut at the hedge plus a reply
    assert book.hedge_after_ms(0) < 200.0  # still hedged well before a stall ends


def test_a_server_that_never_answered_is_not_taken_for_fast() -> None:
    book = FleetBook(["a", "b"])
    book.first_token(1, 60.0)
    book.cut_short(0, 500.0, at_ns=0)
    assert order(Policy.HEDGED, book, [None, None]) == [1, 0]
