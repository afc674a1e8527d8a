"""The two wire protocols Tachy speaks, a folder each: Ollama's native API (ollama/) and
the OpenAI-compatible one (openai/): the backend, its stream's decoder, its own endpoints.
May import: client.core, client.backends (kinds through kinds.registry), httpx.
"""
