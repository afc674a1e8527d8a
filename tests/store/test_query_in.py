"""Database.query_in: an IN list longer than SQLite's limit on bound parameters runs in
parts, and every row comes back once, each part in its order."""

from __future__ import annotations

from client.store.db import Database


def test_more_ids_than_one_statement_takes(db: Database) -> None:
    db.execute("CREATE TEMP TABLE numbers (n INTEGER PRIMARY KEY)")
    with db.transaction() as conn:
        conn.executemany("INSERT INTO numbers VALUES (?)", [(n,) for n in range(1, 1201)])
    wanted = list(range(1200, 0, -1))  # 1,200 ids: three parts
    rows = db.query_in("SELECT n FROM numbers WHERE n IN ({ids}) ORDER BY n", wanted)
    got = [row[0] for row in rows]
    assert sorted(got) == list(range(1, 1201)) and len(got) == 1200
    assert got[:500] == sorted(wanted[:500])  # the first part, in its own order
    assert db.query_in("SELECT n FROM numbers WHERE n IN ({ids})", []) == []
