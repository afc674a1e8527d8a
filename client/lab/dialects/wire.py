"""The bytes of each protocol: Ollama NDJSON objects and OpenAI SSE chunks.

Both APIs frame a reply the same way (an opening, one unit per chunk, a closing), so a
single writer (client/lab/replies/replying.py) drives either format and injects faults at the
same places. JSON is compact like the real servers' (Go encoding/json escapes <, >, &).
"""

from __future__ import annotations

import json
import time
import uuid
import zlib
from typing import Any, Protocol

from aiohttp import web

from client.lab.dialects.vllm_wire import (
    CHOICE_NULLS,
    FINGERPRINT,
    JSON,
    MESSAGE_NULLS,
    REPLY_NULLS,
    json_response,
    request_metrics,
)
from client.lab.scenarios.models import created_at
from client.lab.timing.plan import Piece, Reply

NDJSON = "application/x-ndjson"
SSE = "text/event-stream; charset=utf-8"


# One encoder for the process: json.dumps() with options builds a new one per call,
# which is most of the cost of a chunk.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(obj: Any) -> str:
    return _ENCODER.encode(obj)


def go_dumps(obj: Any) -> str:
    # Only strings can hold these characters, so escaping the whole text is safe.
    text = dumps(obj)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def ns(seconds: float) -> int:
    return max(0, round(seconds * 1e9))


class WireFormat(Protocol):
    content_type: str
    json_type: str  # the Content-Type of a whole (not streamed) reply
    any_model: bool  # answers whatever model is asked for (a single-model llama-server)

    def opening(self) -> bytes: ...
    def piece(self, piece: Piece) -> bytes: ...
    def closing(self, reply: Reply, end: float) -> bytes: ...
    def error_event(self, message: str) -> bytes: ...
    def progress(self, total: int, cache: int, processed: int, time_ms: int) -> bytes: ...
    def malformed(self) -> bytes: ...
    def whole(self, reply: Reply, end: float) -> dict[str, Any]: ...
    def error_response(self, status: int, message: str) -> web.Response: ...


class OllamaFormat:
    """/api/chat (message.content / message.thinking) or /api/generate (response / thinking)."""

    content_type = NDJSON
    json_type = "application/json; charset=utf-8"  # a whole reply's
    any_model = False

    def __init__(self, model: str, endpoint: str) -> None:
        self.model = model
        self.endpoint = endpoint
        self._model_json = go_dumps(model).encode()

    def _head(self) -> dict[str, Any]:
        return {"model": self.model, "created_at": created_at()}

    def _body(self, text: str, thinking: str) -> dict[str, Any]:
        if self.endpoint == "chat":
            message = {"role": "assistant", "content": text}
            if thinking:
                message["thinking"] = thinking
            return {"message": message}
        body = {"response": text}
        if thinking:
            body["thinking"] = thinking
        return body

    def opening(self) -> bytes:
        return b""

    def piece(self, piece: Piece) -> bytes:
        if piece.finish is not None and not piece.text:
            return b""  # the end-of-sequence token: counted, not sent
        if self.endpoint == "chat" and piece.kind == "answer":  # the hot path, pre-built
            return (
                b'{"model":%s,"created_at":"%s","message":{"role":"assistant","content":%s},"done":false}\n'
                % (
                    self._model_json,
                    created_at().encode(),
                    go_dumps(piece.text).encode(),
                )
            )
        text, thinking = ("", piece.text) if piece.kind == "thinking" else (piece.text, "")
        return self._line({**self._head(), **self._body(text, thinking), "done": False})

    def _final(self, reply: Reply, end: float, text: str, thinking: str) -> dict[str, Any]:
        obj = {**self._head(), **self._body(text, thinking)}
        # Field order follows Ollama's Go structs: chat puts done_reason before done.
        if self.endpoint == "chat":
            obj["done_reason"] = reply.finish_reason
            obj["done"] = True
        else:
            obj["done"] = True
            obj["done_reason"] = reply.finish_reason
        if self.endpoint == "generate":  # the conversation's tokens, for the next request
            obj["context"] = [*reply.prompt_ids, *token_ids(reply.text, reply.thinking)]
        obj.update(ollama_durations(reply, end))
        return obj

    def closing(self, reply: Reply, end: float) -> bytes:
        return self._line(self._final(reply, end, "", ""))

    def progress(self, total: int, cache: int, processed: int, time_ms: int) -> bytes:
        return b""  # Ollama says nothing while it reads the prompt

    def whole(self, reply: Reply, end: float) -> dict[str, Any]:
        return self._final(reply, end, "".join(reply.text), "".join(reply.thinking))

    def error_event(self, message: str) -> bytes:
        return self._line({"error": message})

    def malformed(self) -> bytes:
        key = "message" if self.endpoint == "chat" else "response"
        return f'{{"model":"{self.model}","created_at":"{created_at()}","{key}":{{"rol\n'.encode()

    def error_response(self, status: int, message: str) -> web.Response:
        return ollama_error(status, message)

    @staticmethod
    def _line(obj: dict[str, Any]) -> bytes:
        return (go_dumps(obj) + "\n").encode()


def ollama_error(status: int, message: str) -> web.Response:
    return web.Response(
        status=status, text=go_dumps({"error": message}), content_type="application/json"
    )


def token_ids(*texts: list[str]) -> list[int]:
    """Stable stand-in token ids (a real server's come from its vocabulary)."""
    return [zlib.crc32(piece.encode()) % 32000 for text in texts for piece in text]


def ollama_durations(reply: Reply, end: float) -> dict[str, int]:
    """Nanosecond timings; zero ones are left out, as Go's omitempty does.

    load_duration runs from the request's arrival to the runner being ready (queue
    and load included, as Ollama's checkpointStart..checkpointLoaded), so it is on
    every final line: small when warm, never zero.
    """
    loaded = reply.loaded_at if reply.loaded_at is not None else reply.arrival + reply.load_s
    first = reply.first_token_at if reply.first_token_at is not None else end
    last = reply.last_token_at if reply.last_token_at is not None else end
    decode = last - first
    if reply.chunks > 1:  # (C-1) gaps span C-1 chunks; the rate should cover all C
        decode = decode * reply.chunks / (reply.chunks - 1)
    values = {
        "total_duration": ns(end - reply.arrival),
        "load_duration": max(1, ns(loaded - reply.arrival)),
        "prompt_eval_count": reply.prompt_tokens,
        "prompt_eval_duration": ns(first - loaded),
        "eval_count": reply.output_tokens,
        "eval_duration": ns(decode),
    }
    return {key: value for key, value in values.items() if value}


class OpenAIFormat:
    """vLLM 0.32's chat.completion.chunk events (client/lab/dialects/vllm_wire.py: what it adds).

    A reply that ends by length carries finish_reason on its last token's chunk (the plan
    marks that piece); one that ends by stop, on a chunk with content "" after the text
    (where vLLM sends the end-of-sequence token). The last event before [DONE] (the usage
    chunk, else the finish chunk) carries system_fingerprint."""

    content_type = SSE
    json_type = JSON  # a whole reply's
    any_model = False

    def __init__(
        self,
        model: str,
        include_usage: bool,
        continuous_usage: bool = False,
        prompt_tokens: int = 0,
        request_metrics: bool = False,
    ) -> None:
        self.model = model
        self.include_usage = include_usage
        # vLLM's stream_options.continuous_usage_stats: usage on every chunk.
        self.continuous_usage = continuous_usage
        self.prompt_tokens = prompt_tokens
        # --enable-per-request-metrics: vLLM's own timings beside the usage.
        self.request_metrics = request_metrics
        self._completion_tokens = 0
        self._opened = False
        self._finish_sent = False
        self.id = f"chatcmpl-{uuid.uuid4().hex[:16]}"
        self.created = int(time.time())
        head = dumps({"id": self.id, "object": "chat.completion.chunk", "created": self.created})
        self._piece_prefix = (
            f'data: {head[:-1]},"model":{dumps(model)},"choices":[{{"index":0,"delta":{{"'
        ).encode()

    def _running_usage(self) -> dict[str, int]:
        done = self._completion_tokens
        return {
            "prompt_tokens": self.prompt_tokens,
            "total_tokens": self.prompt_tokens + done,
            "completion_tokens": done,
        }

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> bytes:
        if self.continuous_usage and "usage" not in extra:
            extra["usage"] = self._running_usage()
        obj = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            **extra,
        }
        return f"data: {dumps(obj)}\n\n".encode()

    @staticmethod
    def _choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}

    @classmethod
    def _finish_choice(cls, delta: dict[str, Any], finish: str) -> dict[str, Any]:
        return {**cls._choice(delta, finish), "stop_reason": None, "token_ids": None}

    def _last_event(self) -> dict[str, Any]:
        """What the finish chunk adds when it is the last event (no usage chunk follows)."""
        return {} if self.include_usage else {"system_fingerprint": FINGERPRINT}

    def opening(self) -> bytes:
        # vLLM sends its role chunk with the first token, not before: see piece().
        return b""

    def _role_chunk(self) -> bytes:
        role = self._choice({"role": "assistant", "content": ""})
        return self._chunk([role], prompt_token_ids=None, prompt_text=None)

    def piece(self, piece: Piece) -> bytes:
        head = b""
        if not self._opened:
            self._opened = True
            head = self._role_chunk()
        key = "reasoning_content" if piece.kind == "thinking" else "content"
        self._completion_tokens += piece.tokens
        if piece.finish is not None:  # the last token of a reply cut by max_tokens
            self._finish_sent = True
            choice = self._finish_choice({key: piece.text}, piece.finish)
            return head + self._chunk([choice], **self._last_event())
        if self.continuous_usage:
            return head + self._chunk([{**self._choice({key: piece.text}), "token_ids": None}])
        # The hot path: the same bytes as _chunk() would give, without building dicts.
        return head + b'%s%s":%s},"logprobs":null,"finish_reason":null,"token_ids":null}]}\n\n' % (
            self._piece_prefix,
            key.encode(),
            dumps(piece.text).encode(),
        )

    def progress(self, total: int, cache: int, processed: int, time_ms: int) -> bytes:
        return b""  # vLLM has no prefill progress events

    def closing(self, reply: Reply, end: float) -> bytes:
        out = b"" if self._opened else self._role_chunk()
        if not self._finish_sent:
            final = self._finish_choice({"content": ""}, reply.finish_reason)
            out += self._chunk([final], **self._last_event())
        if self.include_usage:
            extra: dict[str, Any] = {"usage": usage(reply), "system_fingerprint": FINGERPRINT}
            if self.request_metrics:
                extra["metrics"] = request_metrics(reply, end)
            out += self._chunk([], **extra)
        return out + b"data: [DONE]\n\n"

    def whole(self, reply: Reply, end: float) -> dict[str, Any]:
        thinking = "".join(reply.thinking) if reply.thinking else None
        message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.text)}
        message.update(dict.fromkeys(MESSAGE_NULLS))
        # vLLM 0.32 calls it reasoning; older ones (and their docs) reasoning_content and
        # tool_calls, kept for the clients written against those.
        message.update(reasoning=thinking, reasoning_content=thinking, tool_calls=[])
        choice = {"index": 0, "message": message, "logprobs": None}
        choice.update(finish_reason=reply.finish_reason, stop_reason=None)
        choice.update(dict.fromkeys(CHOICE_NULLS))
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [choice],
            "service_tier": None,
            "system_fingerprint": FINGERPRINT,
            "usage": {**usage(reply), "prompt_tokens_details": None,
                      "completion_tokens_details": None},
            **dict.fromkeys(REPLY_NULLS),
        }  # fmt: skip
        if self.request_metrics:
            out["metrics"] = request_metrics(reply, end, whole=True)
        return out

    def error_event(self, message: str) -> bytes:
        error = error_body(500, message)
        return f"data: {dumps(error)}\n\n".encode() + b"data: [DONE]\n\n"

    def malformed(self) -> bytes:
        return f'data: {{"id":"{self.id}","object":"chat.completion.chunk","choi\n\n'.encode()

    def error_response(self, status: int, message: str) -> web.Response:
        # vLLM's only 404 with an error object is an unknown model (param "model").
        return openai_error(status, message, "model" if status == 404 else None)


def usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "total_tokens": reply.prompt_tokens + reply.output_tokens,
        "completion_tokens": reply.output_tokens,
    }


_ERROR_TYPES = {400: "BadRequestError", 401: "AuthenticationError", 404: "NotFoundError",
                429: "RateLimitError", 503: "ServiceUnavailableError"}  # fmt: skip


def error_body(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "InternalServerError" if status >= 500 else "BadRequestError")
    return {"error": {"message": message, "type": kind, "param": param, "code": status}}


def openai_error(status: int, message: str, param: str | None = None) -> web.Response:
    """vLLM's error object; `param` names the field at fault ("model", "max_tokens" ...)."""
    return json_response(dumps(error_body(status, message, param)), status)
