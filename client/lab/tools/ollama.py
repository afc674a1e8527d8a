"""Ollama's /api/chat with tools (docs/api.md "Streaming with tools", server/routes.go):
each call whole, `arguments` an object, `id` "call_" and 8 letters or digits; on a
done:false line of its own followed by an empty done line, or (with
`tool_calls_style = "done_line"`) on the done line itself, as some models' parsers do."""

from __future__ import annotations

import json
import random
import string
from datetime import UTC, datetime
from typing import Any

from client.lab.tools.planning import PlannedCall, ToolTurn

NDJSON = "application/x-ndjson"


class OllamaToolWire:
    def __init__(self, model: str, rng: random.Random, done_line: bool) -> None:
        self.model = model
        self.done_line = done_line
        self._rng = rng

    def pieces(self, turn: ToolTurn) -> list[bytes]:
        """The lines that come one TPOT apart (the done line is `closing`)."""
        if turn.calls:
            return [] if self.done_line else [self._line(self._message("", turn), done=False)]
        return [self._line({"role": "assistant", "content": word}, False) for word in words(turn)]

    def closing(self, turn: ToolTurn, durations: dict[str, int]) -> bytes:
        calls = turn if self.done_line else ToolTurn()
        message = self._message("", calls)
        return self._line(message, done=True, done_reason="stop", **durations)

    def whole(self, turn: ToolTurn, durations: dict[str, int]) -> dict[str, Any]:
        obj = self._head() | {"message": self._message(turn.answer, turn)}
        return obj | {"done_reason": "stop", "done": True, **durations}

    def _message(self, text: str, turn: ToolTurn) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if turn.calls:
            message["tool_calls"] = [self._call(i, c) for i, c in enumerate(turn.calls)]
        return message

    def _call(self, index: int, call: PlannedCall) -> dict[str, Any]:
        letters = "".join(self._rng.choices(string.ascii_lowercase + string.digits, k=8))
        function = {"index": index, "name": call.name, "arguments": call.arguments}
        return {"id": f"call_{letters}", "function": function}

    def _head(self) -> dict[str, Any]:
        return {"model": self.model, "created_at": created_at()}

    def _line(self, message: dict[str, Any], done: bool, **extra: Any) -> bytes:
        obj = self._head() | {"message": message}
        if "done_reason" in extra:  # Go's field order: done_reason before done
            obj["done_reason"] = extra.pop("done_reason")
        return (go_dumps(obj | {"done": done, **extra}) + "\n").encode()


def words(turn: ToolTurn) -> list[str]:
    """The answer in word-sized pieces, each with its leading space."""
    parts = turn.answer.split(" ")
    return [parts[0], *(" " + part for part in parts[1:])] if turn.answer else []


def created_at() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def go_dumps(obj: Any) -> str:
    """Compact JSON as Go's encoding/json writes it (<, > and & escaped)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
