"""How bytes reach a server: asyncio sockets, Tachy's pool, the httpx transport, read batches.
May import: client.core, client.backends (errors, reasons), httpx, httpcore; never a kind.
"""
