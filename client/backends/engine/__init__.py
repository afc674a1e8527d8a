"""The managed local engine: llama-server (xllamacpp) as a child process, its settings.
May import: client.core, client.backends (errors, reasons, address), httpx; never a kind.
"""
