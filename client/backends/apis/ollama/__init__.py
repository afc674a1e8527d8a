"""Ollama's native API: the backend (/api/chat, tags, ps, show), NDJSON decoder, pulls.
May import: client.core, client.backends (kinds), httpx.
"""
