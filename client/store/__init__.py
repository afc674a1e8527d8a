"""Persistence: SQLite history, per-request metrics, endpoints and settings (db.py has
the schema and its migrations); API keys only in the system keyring (secrets.py).

Every call is short and blocking. The ui makes them through `await db.run(fn, ...)`
(one worker thread per database) or from its loop outside the streaming hot path.
"""
