"""/v1/chat/completions with tools, as vLLM or llama-server streams them.

vLLM (entrypoints/openai/serving_chat.py and its tool parsers): a role chunk with content
"", then per call a first delta with `id` ("chatcmpl-tool-" and 32 hex digits), `type`
and `function.name`, then `function.arguments` fragments keyed by `index`; the parser's
last fragment goes out on the finish chunk itself, beside `finish_reason: "tool_calls"`.
llama-server (common_chat_msg_diff): the role delta's content is null, a call's first
delta carries its id, name and `arguments: ""`, the finish chunk has an empty delta.
Parallel calls come one after the other, or interleaved with `tool_calls_style =
"interleaved"` (what the API allows and a client must take).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from client.lab.tools.ollama import words
from client.lab.tools.planning import ToolTurn

SSE = "text/event-stream; charset=utf-8"
FRAGMENT_CHARS = 6  # about a token of JSON text per fragment


class OpenAIToolWire:
    def __init__(
        self, model: str, rng: random.Random, llamacpp: bool, interleaved: bool, usage: bool
    ) -> None:
        self.model = model
        self.llamacpp = llamacpp
        self.interleaved = interleaved
        self.usage = usage
        self._rng = rng
        self.id = f"chatcmpl-{rng.getrandbits(64):016x}"
        self.created = int(time.time())
        self._held: list[dict[str, Any]] = []  # vLLM: the fragment its finish chunk carries

    def pieces(self, turn: ToolTurn) -> list[bytes]:
        role = {"role": "assistant", "content": None if self.llamacpp else ""}
        if not turn.calls:
            return [self._chunk(role)] + [self._chunk({"content": w}) for w in words(turn)]
        deltas = self._call_deltas(turn)
        if not self.llamacpp:
            self._held = [deltas.pop()]
        return [self._chunk(role)] + [self._chunk({"tool_calls": [d]}) for d in deltas]

    def closing(self, turn: ToolTurn, usage: dict[str, int]) -> bytes:
        finish = "tool_calls" if turn.calls else "stop"
        delta: dict[str, Any] = {"tool_calls": self._held} if self._held else {}
        if not self.llamacpp and not turn.calls:
            delta = {"content": ""}  # vLLM's end-of-sequence chunk
        out = self._chunk(delta, finish)
        if self.usage:
            out += self._event({**self._head(), "choices": [], "usage": usage})
        return out + b"data: [DONE]\n\n"

    def whole(self, turn: ToolTurn, usage: dict[str, int]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.answer or None}
        if turn.calls:
            message["tool_calls"] = [
                {"id": self._call_id(), "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in turn.calls
            ]  # fmt: skip
        finish = "tool_calls" if turn.calls else "stop"
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        head = self._head() | {"object": "chat.completion"}
        return head | {"choices": [choice], "usage": usage}

    def _call_deltas(self, turn: ToolTurn) -> list[dict[str, Any]]:
        per_call = []
        for index, call in enumerate(turn.calls):
            text = json.dumps(call.arguments, ensure_ascii=False)
            function: dict[str, Any] = {"name": call.name}
            if self.llamacpp:
                function["arguments"] = ""
            first = {"index": index, "id": self._call_id(), "type": "function"}
            fragments = [text[i : i + FRAGMENT_CHARS] for i in range(0, len(text), FRAGMENT_CHARS)]
            rest = [{"index": index, "function": {"arguments": f}} for f in fragments]
            per_call.append([first | {"function": function}, *rest])
        if not self.interleaved:
            return [delta for deltas in per_call for delta in deltas]
        longest = max(len(deltas) for deltas in per_call)
        return [deltas[i] for i in range(longest) for deltas in per_call if i < len(deltas)]

    def _call_id(self) -> str:
        if self.llamacpp:
            return "".join(
                self._rng.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", k=32)
            )
        return f"chatcmpl-tool-{self._rng.getrandbits(128):032x}"

    def _head(self) -> dict[str, Any]:
        head = {"id": self.id, "object": "chat.completion.chunk", "created": self.created}
        return head | {"model": self.model}

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None}
        choice["finish_reason"] = finish
        return self._event({**self._head(), "choices": [choice]})

    @staticmethod
    def _event(obj: dict[str, Any]) -> bytes:
        return f"data: {json.dumps(obj, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()
