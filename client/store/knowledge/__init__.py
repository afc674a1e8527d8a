"""The knowledge index of the user's documents: its database file, reading them, reads and writes.
May import: db, client.core, sqlite3, pypdf.
"""
