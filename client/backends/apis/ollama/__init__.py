"""Ollama's native API: the backend (/api/chat, tags, ps, show, version), the NDJSON
decoder and model pulls. The kind's own parts are in client/backends/kinds/ollama.
May import: client.core, client.backends (kinds), httpx.
"""
