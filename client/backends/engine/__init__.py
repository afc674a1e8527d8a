"""The managed local engine: llama-server (xllamacpp) as a child process on a loopback
port, its settings, the child's own entry point and the probe that it answers.
May import: client.core, client.backends (errors, reasons, address), httpx; never a kind folder.
"""
