"""Scrub a recording for sharing: the model's text is replaced by the lab's corpus.

Each JSON line of a body (NDJSON, or an SSE ``data:`` line) is parsed and every text field
(content, reasoning, thinking, response, text, prompt) gets corpus tokens of about the
same length, so chunk count, timing and sizes stay close; token ids and log-probabilities
(which spell the text too) are blanked. Lines that are not JSON are kept as they are.
"""

from __future__ import annotations

import json
from typing import Any

from client.lab.scenarios.recording import Chunk
from client.lab.text.corpus import CHINESE, CHINESE_REASONING, ENGLISH, ENGLISH_REASONING, tokenize

TEXT_KEYS = frozenset({"content", "reasoning_content", "reasoning", "thinking", "response", "text"})
THINKING_KEYS = frozenset({"reasoning_content", "reasoning", "thinking"})
ID_KEYS = frozenset({"context", "tokens"})  # token ids: Ollama's context, llama.cpp's tokens
DROPPED_KEYS = frozenset({"logprobs", "completion_probabilities", "prompt"})
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_CORPORA = {
    (False, False): ENGLISH,
    (False, True): ENGLISH_REASONING,
    (True, False): CHINESE,
    (True, True): CHINESE_REASONING,
}


class Scrubber:
    """Keeps its place in the corpus, so a whole session reads as running text."""

    def __init__(self) -> None:
        self._tokens = {key: tokenize(" " + text.strip()) for key, text in _CORPORA.items()}
        self._places = dict.fromkeys(_CORPORA, 0)

    def chunk(self, chunk: Chunk) -> Chunk:
        return Chunk(chunk.at_s, b"\n".join(self._line(line) for line in chunk.data.split(b"\n")))

    def _line(self, line: bytes) -> bytes:
        body, end = (line[:-1], b"\r") if line.endswith(b"\r") else (line, b"")
        prefix = b""
        if body.startswith(b"data:"):
            cut = 6 if body[5:6] == b" " else 5
            prefix, body = body[:cut], body[cut:]
        try:
            value = json.loads(body)
        except ValueError:
            return line  # blank lines, [DONE], event: lines, a cut body
        if not isinstance(value, dict | list):
            return line
        return prefix + _ENCODER.encode(self._walk(value, "")).encode() + end

    def _walk(self, value: Any, key: str) -> Any:
        if isinstance(value, dict):
            return {k: self._field(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(item, key) for item in value]
        return value

    def _field(self, key: str, value: Any) -> Any:
        if key in TEXT_KEYS and isinstance(value, str):
            return self.text(value, key in THINKING_KEYS)
        if key in ID_KEYS and isinstance(value, list):
            return [0] * len(value)
        if key in DROPPED_KEYS and value is not None:
            return None
        return self._walk(value, key)

    def text(self, original: str, thinking: bool = False) -> str:
        """Corpus tokens at least as long as the original (whitespace is kept as it is)."""
        if not original.strip():
            return original
        key = (any("\u3000" <= c <= "\u9fff" for c in original), thinking)
        tokens, place = self._tokens[key], self._places[key]
        out = ""
        while not out or len(out) < len(original.strip()):
            out += tokens[place % len(tokens)]
            place += 1
        self._places[key] = place % len(tokens)
        if not original[0].isspace():
            out = out.lstrip()
        return out
