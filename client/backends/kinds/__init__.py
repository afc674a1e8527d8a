"""Server kinds, a folder each (ollama, openai, vllm, llamacpp, llama_cpp_python): body,
timings, metrics, name and detection behind one `ServerKind` (kind.py), listed in registry.py.
May import: client.core, client.backends.figures; never client.backends.apis (which asks them).
"""
