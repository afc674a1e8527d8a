"""Persistence: SQLite history, metrics, endpoints, settings (db.py); API keys in the keyring.
May import: client.core, sqlite3, keyring; never client.backends, services, ui, cli.

Every call is short and blocking. The ui makes them through `await db.run(fn, ...)`
(one worker thread per database) or from its loop outside the streaming hot path.
"""
