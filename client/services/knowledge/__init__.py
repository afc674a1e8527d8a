"""The user's documents: indexing and the retrieving stage.
May import: servers, planning, storage, backends, store, core.
"""
