"""OpenAI-compatible chat completion stream (server-sent events) -> events.

Pure: bytes in, events out. Handles what vLLM, llama.cpp server, LM Studio and
Ollama's /v1 send: comment pings, CRLF, a role-only first chunk (not a token),
reasoning deltas, a usage chunk with ``choices: []`` after the finish_reason,
llama.cpp ``prompt_progress``, a kind's own timings under its chunk key (llama.cpp
``timings``, vLLM per-request ``metrics``: client/backends/kinds/registry.py), error events.
"""

from __future__ import annotations

import json
from typing import Any

from client.backends.decoders import (
    DEFAULT_LINE_LIMIT,
    LineBuffer,
    as_object,
    error_from_message,
    error_text,
    html_refused,
    looks_like_html,
    parse_json_object,
    snippet,
    to_text,
)
from client.backends.errors import ProtocolError, TachyError
from client.backends.kinds import registry
from client.backends.tool_calls import OpenAIToolCalls
from client.core.events import (
    DecodedEvent,
    Done,
    DoneReason,
    Finished,
    Prefill,
    Token,
    TokenKind,
    Usage,
)

FINISH_REASONS = {
    "stop": DoneReason.STOP,
    "length": DoneReason.LENGTH,
    "tool_calls": DoneReason.TOOL_CALLS,
    "function_call": DoneReason.TOOL_CALLS,  # the API's older name
    "tool": DoneReason.TOOL_CALLS,  # older llama-server
}
IGNORED_FIELDS = ("id", "retry")
_TIMINGS = registry.STREAM_TIMINGS  # chunk key -> the kind's timings type
_TIMINGS_KEYS = frozenset(_TIMINGS)


class OpenAIStreamDecoder:
    """Server-sent events per the HTML spec: ``data:`` lines joined until a blank line,
    except that a data line which is a whole JSON value is handled at once.

    Done comes at ``data: [DONE]`` (after the usage chunk), not at finish_reason,
    so usage and timings are not lost. A stream that ends after a finish_reason
    without [DONE] is done too (some servers); one that ends with neither is
    left without Done, which the stream reports as interrupted.
    """

    def __init__(self, model: str = "", line_limit: int = DEFAULT_LINE_LIMIT) -> None:
        self.model = model
        self._lines = LineBuffer(line_limit)
        self._data: list[bytes] = []
        self._event_type = ""
        self._finish: DoneReason | None = None
        self._done = False
        self._tools = OpenAIToolCalls()

    def feed(self, data: bytes) -> list[DecodedEvent]:
        return self._decode(self._lines.feed(data))

    def close(self) -> list[DecodedEvent]:
        events = self._decode(self._lines.close())
        if not self._done and self._data:  # the last event had no blank line after it
            events.extend(self._dispatch())
        if not self._done and self._finish is not None:
            events.extend(self._done_events())
        return events

    def _decode(self, lines: list[bytes]) -> list[DecodedEvent]:
        events: list[DecodedEvent] = []
        for line in lines:
            if self._done:
                break
            if not line:  # a blank line ends an event
                if self._data:
                    events.extend(self._dispatch())
                self._event_type = ""
            elif line.startswith(b"data:"):
                data = line[6:] if line.startswith(b"data: ") else line[5:]
                if self._data or not self._dispatch_at_once(data, events):
                    self._data.append(data)
            elif not line.startswith(b":"):  # ":" starts a comment (keep-alive ping)
                self._field(to_text(line))
        return events

    def _dispatch_at_once(self, data: bytes, events: list[DecodedEvent]) -> bool:
        """Handle a data line that is a whole event by itself, without waiting for
        the blank line: lower latency, and servers that omit blank lines still
        stream. A line holding a complete JSON value cannot start a longer one."""
        if data == b"[DONE]":
            events.extend(self._done_events())
            return True
        try:
            value = json.loads(data.decode("utf-8"))
        except ValueError:
            return False  # part of a multi-line event, or broken: decided at the blank line
        events.extend(self._handle(as_object(value, data), data))
        self._event_type = ""
        return True

    def _done_events(self) -> list[DecodedEvent]:
        """The end: calls not yet handed on (a stream without finish_reason), then Done."""
        self._done = True
        reason = self._finish or (DoneReason.TOOL_CALLS if self._tools.any else DoneReason.STOP)
        return [*self._tools.end(), Done(reason)]

    def _field(self, line: str) -> None:
        name, _, value = line.partition(":")
        if name == "data":  # "data" without a colon: an empty data line
            self._data.append(b"")
        elif name == "event":
            self._event_type = value.strip()
        elif name not in IGNORED_FIELDS:
            raise _not_sse(line)

    def _dispatch(self) -> list[DecodedEvent]:
        data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
        self._data = []
        if data.strip() == b"[DONE]":
            return self._done_events()
        events = self._handle(parse_json_object(data), data)
        self._event_type = ""
        return events

    def _handle(self, chunk: dict[str, Any], data: bytes) -> list[DecodedEvent]:
        if chunk.get("error") is not None or self._event_type == "error":
            message = error_text(chunk) or snippet(to_text(data), 200)
            raise error_from_message(None, message, self.model)
        return self._chunk_events(chunk)

    def _chunk_events(self, chunk: dict[str, Any]) -> list[DecodedEvent]:
        events: list[DecodedEvent] = []
        choices = chunk.get("choices")
        if choices and type(choices) is list and type(choices[0]) is dict:
            choice = choices[0]
            delta = choice.get("delta")
            if type(delta) is dict:
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if reasoning and type(reasoning) is str:
                    events.append(Token(reasoning, TokenKind.THINKING))
                content = delta.get("content")
                if content and type(content) is str:
                    events.append(Token(content, TokenKind.ANSWER))
                if "tool_calls" in delta:  # vLLM's finish chunk may carry the last fragment
                    events.extend(self._tools.add(delta["tool_calls"]))
            finish = choice.get("finish_reason")
            if finish:
                self._finish = FINISH_REASONS.get(str(finish), DoneReason.OTHER)
                if self._finish is DoneReason.STOP and self._tools.any:
                    self._finish = DoneReason.TOOL_CALLS  # servers that say "stop" anyway
                events.extend(self._tools.end())
                events.append(Finished(self._finish))
        if "usage" in chunk or not _TIMINGS_KEYS.isdisjoint(chunk):
            events.extend(_extras(chunk))
        if "prompt_progress" in chunk:
            progress = _prefill(chunk["prompt_progress"])
            if progress is not None:
                events.append(progress)
        return events


def _prefill(value: Any) -> Prefill | None:
    """llama.cpp's {"total", "cache", "processed", "time_ms"}; anything malformed is
    ignored (progress is a nicety, never a reason to fail an answer)."""
    numbers = _numbers(value)
    total, processed = numbers.get("total"), numbers.get("processed")
    if total is None or processed is None or total < 0 or processed < 0:
        return None
    cached = min(max(int(numbers.get("cache", 0)), 0), int(total))
    return Prefill(int(processed), int(total), cached, max(float(numbers.get("time_ms", 0)), 0.0))


def _extras(chunk: dict[str, Any]) -> list[DecodedEvent]:
    events: list[DecodedEvent] = []
    kinds = [
        timings(values) for key, timings in _TIMINGS.items() if (values := _numbers(chunk.get(key)))
    ]
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        events.append(Usage(_int_or_none(prompt), _int_or_none(completion)))
        details = usage.get("prompt_tokens_details")  # vLLM, llama-server: the cache's share
        cached = _int_or_none(details.get("cached_tokens")) if isinstance(details, dict) else None
        # Said once: where a kind's own timings on the chunk count the cache (llama.cpp's
        # cache_n) they say it; vLLM's per-request `metrics` do not, so the usage's is kept.
        if cached is not None and all(k.cached_tokens() is None for k in kinds):
            events.append(registry.timings_of("openai", {"cached_tokens": float(cached)}))
    events.extend(kinds)
    return events


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _numbers(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        return {}
    return {
        key: item
        for key, item in value.items()
        if isinstance(item, int | float) and not isinstance(item, bool)
    }


def _not_sse(line: str) -> TachyError:
    if looks_like_html(line):
        return html_refused()
    if line.lstrip().startswith("{"):
        try:
            payload = parse_json_object(line.encode("utf-8", "replace"))
        except ProtocolError:
            payload = {}
        message = error_text(payload)
        if message is not None:
            return error_from_message(None, message)
        return ProtocolError("the server sent plain JSON instead of an event stream")
    return ProtocolError(f"a line is not a server-sent event: {snippet(line)!r}")
