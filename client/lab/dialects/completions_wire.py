"""vLLM's legacy /v1/completions: `text_completion` objects with choices[].text."""

from __future__ import annotations

from typing import Any

from client.lab.dialects.wire import OpenAIFormat, dumps, usage
from client.lab.timing.plan import Piece, Reply


class CompletionsFormat(OpenAIFormat):
    def __init__(
        self, model: str, include_usage: bool, continuous_usage: bool, prompt_tokens: int
    ) -> None:
        super().__init__(model, include_usage, continuous_usage, prompt_tokens)
        self.id = "cmpl-" + self.id.removeprefix("chatcmpl-")

    def _completion(self, choices: list[dict[str, Any]], **extra: Any) -> bytes:
        if self.continuous_usage and "usage" not in extra:
            extra["usage"] = self._running_usage()
        obj = {
            "id": self.id,
            "object": "text_completion",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            **extra,
        }
        return f"data: {dumps(obj)}\n\n".encode()

    @staticmethod
    def _text_choice(text: str, finish: str | None = None) -> dict[str, Any]:
        return {
            "index": 0,
            "text": text,
            "logprobs": None,
            "finish_reason": finish,
            "stop_reason": None,
        }

    def piece(self, piece: Piece) -> bytes:
        self._opened = True
        self._completion_tokens += piece.tokens
        return self._completion([self._text_choice(piece.text)])

    def closing(self, reply: Reply, end: float) -> bytes:
        out = self._completion([self._text_choice("", reply.finish_reason)])
        if self.include_usage:
            out += self._completion([], usage=usage(reply))
        return out + b"data: [DONE]\n\n"

    def whole(self, reply: Reply, end: float) -> dict[str, Any]:
        choice = self._text_choice("".join(reply.text), reply.finish_reason)
        choice["prompt_logprobs"] = None
        return {
            "id": self.id,
            "object": "text_completion",
            "created": self.created,
            "model": self.model,
            "choices": [choice],
            "usage": {**usage(reply), "prompt_tokens_details": None},
        }
