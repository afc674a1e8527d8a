"""Server kinds, a folder each behind one ServerKind (kind.py), listed once in registry.py.
May import: client.core, client.backends.figures; never client.backends.apis (which asks them).
"""
