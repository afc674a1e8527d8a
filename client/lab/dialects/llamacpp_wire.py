"""llama.cpp server's chat.completion.chunk events (tools/server of ggml-org/llama.cpp).

Differences from vLLM that a client can see: keys in llama.cpp's order with
`system_fingerprint`; the role delta carries `"content": null`; `prompt_progress`
chunks while the prompt is read (request field `return_progress`); a `timings` object
on the last chunk (and on the whole answer); usage with `prompt_tokens_details`.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from client.lab.dialects.wire import OpenAIFormat, dumps
from client.lab.timing.plan import Piece, Reply

BUILD_INFO = "b6990-tachylab"  # what a real server prints as b<build>-<commit>


def timings(reply: Reply, end: float) -> dict[str, float | int]:
    """llama.cpp's result_timings: prompt figures exclude the cached prefix."""
    loaded = reply.loaded_at if reply.loaded_at is not None else reply.arrival + reply.load_s
    first = reply.first_token_at if reply.first_token_at is not None else end
    last = reply.last_token_at if reply.last_token_at is not None else end
    prompt_n = max(0, reply.prompt_tokens - reply.cache_tokens)
    prompt_ms = max(0.0, (first - loaded) * 1000.0)
    predicted_n = reply.output_tokens
    # The first token ends prefill; decoding time covers the tokens after it.
    predicted_ms = max(0.0, (last - first) * 1000.0)
    if reply.chunks > 1:
        predicted_ms = predicted_ms * reply.chunks / (reply.chunks - 1)
    return {
        "cache_n": reply.cache_tokens,
        "prompt_n": prompt_n,
        "prompt_ms": round(prompt_ms, 3),
        "prompt_per_token_ms": round(prompt_ms / prompt_n, 6) if prompt_n else 0.0,
        "prompt_per_second": round(prompt_n / prompt_ms * 1000.0, 6) if prompt_ms else 0.0,
        "predicted_n": predicted_n,
        "predicted_ms": round(predicted_ms, 3),
        "predicted_per_token_ms": round(predicted_ms / predicted_n, 6) if predicted_n else 0.0,
        "predicted_per_second": (
            round(predicted_n / predicted_ms * 1000.0, 6) if predicted_ms else 0.0
        ),
    }


# llama.cpp's error_type names (tools/server/utils.hpp format_error_response).
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                404: "not_found_error", 501: "not_supported_error",
                503: "unavailable_error"}  # fmt: skip


def llamacpp_error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"code": status, "message": message, "type": kind}}


def llamacpp_error(status: int, message: str) -> web.Response:
    body = dumps(llamacpp_error_body(status, message))
    return web.Response(status=status, text=body, content_type="application/json")


# What a real llama-server (xllamacpp's) answers a path it does not serve, Ollama's
# /api/tags and /api/chat among them: the lab's llama.cpp flavour speaks only its wire.
NOT_FOUND_BODY = b'{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'


def llamacpp_not_found() -> web.Response:
    return web.Response(status=404, body=NOT_FOUND_BODY, headers=LOADING_HEADERS)


# llama-server opens its port before its model is loaded and answers every request with
# this meanwhile (/health, /v1/models and /v1/chat/completions alike): the bytes and
# headers a real one (xllamacpp's llama-server) sent, for the lab to send the same.
LOADING_BODY = b'{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'
LOADING_HEADERS = {"Server": "llama.cpp", "Content-Type": "application/json; charset=utf-8"}


def loading_response() -> web.Response:
    return web.Response(status=503, body=LOADING_BODY, headers=LOADING_HEADERS)


def llamacpp_usage(reply: Reply) -> dict[str, Any]:
    return {
        "completion_tokens": reply.output_tokens,
        "prompt_tokens": reply.prompt_tokens,
        "total_tokens": reply.output_tokens + reply.prompt_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cache_tokens},
    }


class LlamaCppFormat(OpenAIFormat):
    """The same framing as vLLM's chunks, with llama.cpp's fields and key order."""

    def __init__(self, model: str, include_usage: bool, prompt_tokens: int = 0) -> None:
        super().__init__(model, include_usage, prompt_tokens=prompt_tokens)

    def _obj(self, choices: list[dict[str, Any]], kind: str, **extra: Any) -> dict[str, Any]:
        return {
            "choices": choices,
            "created": self.created,
            "id": self.id,
            "model": self.model,
            "system_fingerprint": BUILD_INFO,
            "object": kind,
            **extra,
        }

    def _event(self, obj: dict[str, Any]) -> bytes:
        return f"data: {dumps(obj)}\n\n".encode()

    @staticmethod
    def _delta(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"finish_reason": finish, "index": 0, "delta": delta}

    def _role_chunk(self, **extra: Any) -> bytes:
        role = self._delta({"role": "assistant", "content": None})
        return self._event(self._obj([role], "chat.completion.chunk", **extra))

    # A single-model llama-server answers whatever `model` a request names.
    any_model = True
    json_type = "application/json; charset=utf-8"

    def error_event(self, message: str) -> bytes:
        error = llamacpp_error_body(500, message)
        return f"data: {dumps(error)}\n\n".encode() + b"data: [DONE]\n\n"

    def error_response(self, status: int, message: str) -> web.Response:
        return llamacpp_error(status, message)

    def progress(self, total: int, cache: int, processed: int, time_ms: int) -> bytes:
        status = {"total": total, "cache": cache, "processed": processed, "time_ms": time_ms}
        return self._role_chunk(prompt_progress=status)

    def piece(self, piece: Piece) -> bytes:
        if piece.finish is not None and not piece.text:
            return b""  # llama.cpp counts its end-of-sequence token and sends nothing
        head = b""
        if not self._opened:  # llama.cpp's "initial update" goes with the first token
            self._opened = True
            head = self._role_chunk()
        key = "reasoning_content" if piece.kind == "thinking" else "content"
        return head + self._event(
            self._obj([self._delta({key: piece.text})], "chat.completion.chunk")
        )

    def closing(self, reply: Reply, end: float) -> bytes:
        kind = "chat.completion.chunk"
        events = [self._obj([self._delta({}, reply.finish_reason)], kind)]
        if self.include_usage:
            events.append(self._obj([], kind, usage=llamacpp_usage(reply)))
        events[-1]["timings"] = timings(reply, end)
        return b"".join(self._event(e) for e in events) + b"data: [DONE]\n\n"

    def whole(self, reply: Reply, end: float) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.text)}
        if reply.thinking:
            message["reasoning_content"] = "".join(reply.thinking)
        choice = {"finish_reason": reply.finish_reason, "index": 0, "message": message}
        obj = self._obj([choice], "chat.completion", usage=llamacpp_usage(reply))
        obj["id"] = obj.pop("id")  # llama.cpp writes the id after usage
        obj["timings"] = timings(reply, end)
        return obj
