"""The lab's tool-calling models: a request with `tools` gets calls, then an answer.
May import: aiohttp and the standard library; nothing else of client, nor of the lab
(what it uses of the lab's state is a Protocol, replying.LabState).

A question that names tools (or, naming none, the first tool) gets one call per tool,
with arguments taken from the question (planning.py); a request whose last messages are
tool results gets an answer that quotes them. Each dialect writes its own wire
(ollama.py, openai.py): Ollama whole calls (on a line of their own or on the done line),
OpenAI index-keyed deltas (vLLM's last fragment on its finish chunk; parallel calls one
after the other or interleaved), at the scenario's TTFT and TPOT (replying.py).
"""

from __future__ import annotations

from client.lab.tools.replying import answers, ollama_tool_reply, openai_tool_reply

__all__ = ["answers", "ollama_tool_reply", "openai_tool_reply"]
