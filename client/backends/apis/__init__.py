"""The two wire protocols, a folder each: Ollama's native API and the OpenAI-compatible one.
May import: client.core, client.backends (kinds through kinds.registry), httpx.
"""
