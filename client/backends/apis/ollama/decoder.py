"""Ollama's /api/chat stream (NDJSON) -> events. Pure: bytes in, events out."""

from __future__ import annotations

from typing import Any

from client.backends.decoders import (
    DEFAULT_LINE_LIMIT,
    LineBuffer,
    error_from_message,
    error_text,
    parse_json_object,
)
from client.backends.kinds.ollama.timings import OllamaTimings
from client.backends.tool_calls import OllamaToolCalls
from client.core.events import (
    DecodedEvent,
    Done,
    DoneReason,
    Finished,
    Token,
    TokenKind,
)

DONE_REASONS = {
    "stop": DoneReason.STOP,
    "length": DoneReason.LENGTH,
    "load": DoneReason.LOAD,
    "unload": DoneReason.UNLOAD,
}


class OllamaDecoder:
    """One JSON object per line. An {"error": ...} line can come at any point
    (Ollama keeps HTTP 200 once streaming began), so every line is checked."""

    def __init__(self, model: str = "", line_limit: int = DEFAULT_LINE_LIMIT) -> None:
        self.model = model
        self._lines = LineBuffer(line_limit)
        self._done = False
        self._tools = OllamaToolCalls()

    def feed(self, data: bytes) -> list[DecodedEvent]:
        return self._decode(self._lines.feed(data))

    def close(self) -> list[DecodedEvent]:
        return self._decode(self._lines.close())

    def _decode(self, lines: list[bytes]) -> list[DecodedEvent]:
        events: list[DecodedEvent] = []
        for line in lines:
            if self._done or not line.strip():
                continue
            events.extend(self._decode_object(parse_json_object(line)))
        return events

    def _decode_object(self, obj: dict[str, Any]) -> list[DecodedEvent]:
        message = error_text(obj) if "error" in obj else None
        if message is not None:
            raise error_from_message(None, message, self.model)
        events: list[DecodedEvent] = []
        reply = obj.get("message")
        if isinstance(reply, dict):
            _add_token(events, reply.get("thinking"), TokenKind.THINKING)
            _add_token(events, reply.get("content"), TokenKind.ANSWER)
            if "tool_calls" in reply:  # on any line, the done line included
                events.extend(self._tools.add(reply["tool_calls"]))
        else:  # /api/generate puts the text at the top level
            _add_token(events, obj.get("thinking"), TokenKind.THINKING)
            _add_token(events, obj.get("response"), TokenKind.ANSWER)
        if obj.get("done") is True:
            self._done = True
            reason = DONE_REASONS.get(str(obj.get("done_reason") or "stop"), DoneReason.OTHER)
            # Ollama's runners count the end-of-sequence token in eval_count and send
            # the final line when they sample it: on "stop" that line ends e2el.
            events.extend(self._tools.end())
            events.append(Finished(reason))
            events.append(OllamaTimings.from_final_line(obj))
            # Calls sent mean the model wants tools, whatever done_reason says ("stop").
            events.append(Done(DoneReason.TOOL_CALLS if self._tools.any else reason))
        return events


def _add_token(events: list[DecodedEvent], text: Any, kind: TokenKind) -> None:
    if isinstance(text, str) and text:
        events.append(Token(text, kind))
