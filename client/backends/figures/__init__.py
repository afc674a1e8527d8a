"""The server view's short GETs, Prometheus parsing, and the snapshot kinds' readers fill.
May import: client.core, client.backends (errors, reasons), httpx; never a kind folder.
"""
