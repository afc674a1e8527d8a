"""The conversations: messages as a tree, their images and summaries, search, export.
May import: db, metrics_store, client.core, sqlite3.
"""
