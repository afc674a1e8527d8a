"""The OpenAI-compatible API: the backend (/v1/chat/completions, /v1/models), the SSE
decoder and the server's tokenizer; which kind it talks to comes from kinds.registry.
May import: client.core, client.backends (kinds), httpx.
"""
