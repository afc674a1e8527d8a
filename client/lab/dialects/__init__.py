"""The bytes each server speaks: Ollama NDJSON, OpenAI SSE, vLLM's and llama.cpp's additions.
May import: timing, scenarios, text, aiohttp; nothing else of client.
"""
