"""The OpenAI-compatible API as vLLM serves it: chat completions, models, health, metrics."""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import web

from client.lab.corpus import count_prompt_tokens
from client.lab.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from client.lab.replying import Ask, answer
from client.lab.state import LabState
from client.lab.upstream_models import model_names
from client.lab.wire import OpenAIFormat, dumps, openai_error

STARTED = int(time.time())


def routes(lab: LabState) -> list[web.RouteDef]:
    async def chat_completions(request: web.Request) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
        except ValueError as exc:
            return openai_error(400, f"invalid JSON body: {exc}")
        if not isinstance(body, dict) or not body.get("model"):
            return openai_error(400, "'model' is required")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return openai_error(400, "'messages' must be a non-empty list")
        return await answer(request, lab, _ask(lab, body, messages), _format(body))

    async def models(request: web.Request) -> web.Response:
        data = [
            {
                "id": name,
                "object": "model",
                "created": STARTED,
                "owned_by": "vllm",
                "root": name,
                "parent": None,
                "max_model_len": lab.scenario.context_length,
            }
            for name in await model_names(lab)
        ]
        return web.Response(
            text=dumps({"object": "list", "data": data}), content_type="application/json"
        )

    async def health(request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def metrics(request: web.Request) -> web.Response:
        text = lab.metrics.render(lab.scenario.model)
        return web.Response(body=text.encode(), headers={"Content-Type": METRICS_CONTENT_TYPE})

    return [
        web.post("/v1/chat/completions", chat_completions),
        web.get("/v1/models", models),
        web.get("/health", health),
        web.get("/metrics", metrics),
    ]


def _ask(lab: LabState, body: dict[str, Any], messages: list[Any]) -> Ask:
    texts = [_text(m.get("content")) for m in messages if isinstance(m, dict)]
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    template = body.get("chat_template_kwargs") or {}
    thinking_off = isinstance(template, dict) and template.get("enable_thinking") is False
    seed = body.get("seed")
    return Ask(
        model=str(body["model"]),
        prompt_tokens=count_prompt_tokens(" ".join(texts)),
        stream=bool(body.get("stream", False)),
        want_thinking=lab.scenario.reasoning_tokens > 0 and not thinking_off,
        max_tokens=int(limit) if isinstance(limit, int | float) else None,
        keep_alive_s=lab.default_keep_alive(),
        seed=seed if isinstance(seed, int) else None,
        openai_body={k: v for k, v in body.items() if k not in ("stream", "stream_options")},
    )


def _format(body: dict[str, Any]) -> OpenAIFormat:
    options = body.get("stream_options") or {}
    include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
    return OpenAIFormat(str(body["model"]), include_usage)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""
