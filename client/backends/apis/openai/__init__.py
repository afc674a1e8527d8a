"""The OpenAI-compatible API: the backend, the SSE decoder and the server's tokenizer.
May import: client.core, client.backends (kinds), httpx.
"""
