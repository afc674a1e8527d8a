"""The HTTP routes: Ollama's API, the OpenAI-compatible one, llama.cpp's, pulls, /lab/control.
May import: replies, tools, running, dialects, timing, scenarios, text, aiohttp, PIL; not record.
"""
