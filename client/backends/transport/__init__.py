"""How bytes reach a server: asyncio sockets under httpcore, Tachy's connection pool,
the httpx transport over them, and one network read's tokens handed on as one.
May import: client.core, client.backends (errors, reasons), httpx, httpcore; never a kind folder.
"""
