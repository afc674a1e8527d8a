"""llama.cpp server's request body: the OpenAI-compatible one, asking for prompt progress."""

from __future__ import annotations

from typing import Any

from client.backends.kinds.openai.body import chat_body as openai_body
from client.core.conversation import ChatRequest


def chat_body(request: ChatRequest) -> dict[str, Any]:
    body = openai_body(request)
    # prompt_progress chunks while it reads the prompt (another server may refuse the field)
    body["return_progress"] = True
    if request.slot is not None:  # type-ahead: its reads' slot, and the question's
        body["id_slot"] = request.slot
    return body
