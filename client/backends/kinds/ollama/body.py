"""Ollama's /api/chat request body."""

from __future__ import annotations

from typing import Any

from client.backends import tool_wire
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions


def chat_body(request: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": True,
    }
    options = options_of(request.options)
    if options:
        body["options"] = options
    if request.keep_alive is not None:
        body["keep_alive"] = request.keep_alive
    if request.think is not None:
        body["think"] = request.think
    if request.tools:
        body["tools"] = [tool.wire() for tool in request.tools]
    # Ollama continues a trailing assistant message by itself: nothing to add
    # for request.continue_final_message.
    return body


def _message(message: ChatMessage) -> dict[str, Any]:
    """One message of /api/chat: images as a list of base64 strings beside the text."""
    body: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        body["images"] = [image.base64() for image in message.images]
    body.update(tool_wire.ollama_fields(message))
    return body


def options_of(options: GenerationOptions) -> dict[str, Any]:
    """The options under Ollama's names (num_predict for the longest answer)."""
    names = {
        "temperature": options.temperature,
        "seed": options.seed,
        "num_predict": options.max_tokens,
        "num_ctx": options.num_ctx,
        "stop": options.stop,
    }
    return {k: v for k, v in names.items() if v is not None}
