"""The request body of /v1/chat/completions, as every OpenAI-compatible server takes it."""

from __future__ import annotations

from typing import Any

from client.backends import tool_wire
from client.core.conversation import ChatMessage, ChatRequest


def chat_body(request: ChatRequest) -> dict[str, Any]:
    options = request.options
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    mapped = {
        "max_tokens": options.max_tokens,
        "temperature": options.temperature,
        "seed": options.seed,
        "stop": options.stop,
    }
    body.update({key: value for key, value in mapped.items() if value is not None})
    if request.tools:
        body["tools"] = [tool.wire() for tool in request.tools]
    if request.continue_final_message:
        # vLLM's names; the trailing assistant message is continued, not answered.
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False
    return body


def _message(message: ChatMessage) -> dict[str, Any]:
    """One chat message; with images, its content is a list of parts: the text, then
    each image as an `image_url` part holding a data URL (vLLM, llama-server with a
    multimodal projector and LM Studio read these)."""
    if message.tool_calls or message.role == "tool":
        return tool_wire.openai_message(message)
    if not message.images:
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    parts += [
        {"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images
    ]
    return {"role": message.role, "content": parts}
