"""The OpenAI-compatible API as vLLM serves it: chat completions, models, health, metrics."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Middleware

from client.lab import tools
from client.lab.dialects.completions_wire import CompletionsFormat
from client.lab.dialects.llamacpp_wire import LlamaCppFormat, llamacpp_error
from client.lab.dialects.vllm_wire import VERSION, json_response, too_long
from client.lab.dialects.wire import OpenAIFormat, WireFormat, dumps, openai_error
from client.lab.endpoints import llamacpp_api, vision
from client.lab.endpoints.upstream_models import model_names
from client.lab.replies.replying import CONVERSATION_HEADER, Ask, answer
from client.lab.running.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from client.lab.running.state import LabState
from client.lab.text.chat_template import chat_prompt_tokens, with_images
from client.lab.text.corpus import tokenize
from client.lab.text.embedding import embed_texts

STARTED = int(time.time())
LLAMACPP_METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def routes(lab: LabState) -> list[web.RouteDef]:
    async def chat_completions(request: web.Request) -> web.StreamResponse:
        body = await _body_with_model(request, lab)
        if isinstance(body, web.Response):
            return body
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return error_for(lab, 400, "'messages' must be a non-empty list")
        if tools.answers(lab, body):
            return await tools.openai_tool_reply(request, lab, body)
        seen = _images(lab, body, messages)
        if isinstance(seen, web.Response):
            return seen
        own = lab.scenario_for(str(body["model"]))
        prompt = _chat_prompt(messages, own.system_prompt_tokens)
        prompt = with_images(prompt, vision.image_tokens(own, seen))
        ask = _ask(lab, body, prompt, request.headers.get(CONVERSATION_HEADER))
        refused = _refused(lab, ask)
        if refused is not None:
            return refused
        ask = replace(ask, encode_s=vision.encode_s(own, seen))
        return await answer(request, lab, ask, _format(lab, body, ask.prompt_tokens))

    async def completions(request: web.Request) -> web.StreamResponse:
        """The legacy text API: prompt in, choices[].text out (no chat template)."""
        body = await _body_with_model(request, lab)
        if isinstance(body, web.Response):
            return body
        prompt = body.get("prompt")
        if isinstance(prompt, list):
            prompt = " ".join(str(p) for p in prompt)
        if not isinstance(prompt, str):
            return error_for(lab, 400, "'prompt' must be a string or a list of strings")
        ask = _ask(lab, body, ("<s>", *tokenize(prompt)), request.headers.get(CONVERSATION_HEADER))
        return await answer(request, lab, ask, _completions_format(body, ask.prompt_tokens))

    async def embeddings(request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError as exc:
            return error_for(lab, 400, f"invalid JSON body: {exc}")
        if not isinstance(body, dict) or not lab.knows(str(body.get("model") or "")):
            model = body.get("model") if isinstance(body, dict) else None
            return error_for(lab, 404, f"The model `{model}` does not exist.")
        raw = body.get("input")
        texts = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        vectors = embed_texts([str(t) for t in texts])
        tokens = sum(len(tokenize(str(t))) + 1 for t in texts)
        data = [{"index": i, "object": "embedding", "embedding": v} for i, v in enumerate(vectors)]
        out = {
            "id": f"embd-{uuid.uuid4().hex}",
            "object": "list",
            "created": int(time.time()),
            "model": body["model"],
            "data": data,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens, "completion_tokens": 0},
        }
        return json_response(dumps(out))

    async def models(request: web.Request) -> web.Response:
        names = await model_names(lab)
        if lab.scenario.server == "llamacpp":
            return llamacpp_api.models_response(lab, names)
        data = [
            {
                "id": name,
                "object": "model",
                "created": STARTED,
                "owned_by": "vllm",
                "root": name,
                "parent": None,
                "max_model_len": lab.scenario.context_length,
                "permission": [_permission()],
            }
            for name in names
        ]
        return json_response(dumps({"object": "list", "data": data}))

    async def version(request: web.Request) -> web.Response:
        if lab.scenario.server == "llamacpp":
            raise web.HTTPNotFound()
        return json_response(dumps({"version": VERSION}))

    async def health(request: web.Request) -> web.Response:
        if lab.scenario.server == "llamacpp":
            return llamacpp_api.health_response(lab)
        return web.Response(status=200)

    async def metrics(request: web.Request) -> web.Response:
        lab.metrics.running = lab.scheduler.running
        lab.metrics.waiting = lab.scheduler.waiting
        if lab.scenario.server == "llamacpp":
            text = llamacpp_api.render_metrics(lab)
        else:
            text = lab.metrics.render(lab.scenario.model, lab.scenario.spec_acceptance is not None)
        kind = LLAMACPP_METRICS_TYPE if lab.scenario.server == "llamacpp" else METRICS_CONTENT_TYPE
        return web.Response(body=text.encode(), headers={"Content-Type": kind})

    return [
        web.post("/v1/chat/completions", chat_completions),
        web.post("/v1/completions", completions),
        web.post("/v1/embeddings", embeddings),
        web.get("/v1/models", models),
        web.get("/health", health),
        web.get("/version", version),
        web.get("/metrics", metrics),
        *llamacpp_api.routes(lab),
    ]


async def _body_with_model(request: web.Request, lab: LabState) -> dict[str, Any] | web.Response:
    """The request's JSON object when it names a model, else the error to answer."""
    try:
        body = json.loads(await request.read())
    except ValueError as exc:
        return error_for(lab, 400, f"invalid JSON body: {exc}")
    if not isinstance(body, dict) or not body.get("model"):
        return error_for(lab, 400, "'model' is required")
    return body


def _refused(lab: LabState, ask: Ask) -> web.Response | None:
    """vLLM's 400 for a request that cannot fit the model's context (its model known)."""
    if lab.scenario.server == "llamacpp" or lab.scenario.recording is not None:
        return None
    if not lab.knows(ask.model):
        return None  # 404, after the scenario's faults (client/lab/replies/replying.py)
    context = lab.scenario_for(ask.model).context_length
    refused = too_long(ask.prompt_tokens, ask.max_tokens, context)
    return None if refused is None else openai_error(400, refused[0], refused[1])


def not_found_detail(lab: LabState) -> Middleware:
    @web.middleware
    async def detail(request: web.Request, handler: Handler) -> web.StreamResponse:
        """vLLM (FastAPI) answers an unknown path with {"detail": "Not Found"}; Ollama's
        paths (/api/...) and llama.cpp keep their own 404."""
        try:
            return await handler(request)
        except web.HTTPNotFound:
            if request.path.startswith("/api/") or lab.scenario.server == "llamacpp":
                raise
            return json_response(dumps({"detail": "Not Found"}), 404)

    return detail


def _images(
    lab: LabState, body: dict[str, Any], messages: list[Any]
) -> list[vision.SeenImage] | web.Response:
    """The request's images, or the error its server answers (a text model refuses)."""
    try:
        seen = vision.openai_images(messages)
    except vision.BadImage as exc:
        return error_for(lab, 400, str(exc))
    model = str(body["model"])
    own = lab.scenario_for(model)
    if seen and lab.knows(model) and not own.vision:
        return error_for(lab, *vision.refusal(own, "openai"))
    return seen


def error_for(lab: LabState, status: int, message: str) -> web.Response:
    """An error object in the flavour's own shape (vLLM's or llama.cpp's)."""
    if lab.scenario.server == "llamacpp":
        return llamacpp_error(status, message)
    return openai_error(status, message)


def _permission() -> dict[str, Any]:
    """vLLM's ModelPermission, as its ModelCard lists it."""
    return {
        "id": f"modelperm-{uuid.uuid5(uuid.NAMESPACE_URL, 'tachy-lab').hex}",
        "object": "model_permission",
        "created": STARTED,
        "allow_create_engine": False,
        "allow_sampling": True,
        "allow_logprobs": True,
        "allow_search_indices": False,
        "allow_view": True,
        "allow_fine_tuning": False,
        "organization": "*",
        "group": None,
        "is_blocking": False,
    }


def _chat_prompt(messages: list[Any], system_prompt_tokens: int) -> tuple[str, ...]:
    pairs = [
        (str(m.get("role", "user")), _text(m.get("content")))
        for m in messages
        if isinstance(m, dict)
    ]
    return chat_prompt_tokens(pairs, system_prompt_tokens)


def _ask(
    lab: LabState, body: dict[str, Any], prompt: tuple[str, ...], conversation: str | None
) -> Ask:
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    template = body.get("chat_template_kwargs") or {}
    thinking_off = isinstance(template, dict) and template.get("enable_thinking") is False
    seed = body.get("seed")
    model = str(body["model"])
    return Ask(
        model=model,
        prompt=prompt,
        stream=bool(body.get("stream", False)),
        want_thinking=lab.scenario_for(model).reasoning_tokens > 0 and not thinking_off,
        max_tokens=int(limit) if isinstance(limit, int | float) else None,
        keep_alive_s=lab.default_keep_alive(model),
        seed=seed if isinstance(seed, int) else None,
        openai_body={k: v for k, v in body.items() if k not in ("stream", "stream_options")},
        return_progress=lab.scenario.server == "llamacpp" and body.get("return_progress") is True,
        conversation=conversation or _user(body),
        continues=_continued(lab, body),
    )


def _continued(lab: LabState, body: dict[str, Any]) -> str:
    """The final assistant message the server continues: llama-server always (its
    prefill-assistant), vLLM when asked by continue_final_message."""
    messages = body.get("messages")
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict) or last.get("role") != "assistant":
        return ""
    if lab.scenario.server == "llamacpp" or body.get("continue_final_message") is True:
        return _text(last.get("content"))
    return ""


def _user(body: dict[str, Any]) -> str | None:
    user = body.get("user")
    return user if isinstance(user, str) and user else None


def _usage_options(body: dict[str, Any]) -> tuple[bool, bool]:
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        return False, False
    return bool(options.get("include_usage")), bool(options.get("continuous_usage_stats"))


def _format(lab: LabState, body: dict[str, Any], prompt_tokens: int) -> WireFormat:
    include_usage, continuous = _usage_options(body)
    if lab.scenario.server == "llamacpp":
        return LlamaCppFormat(str(body["model"]), include_usage, prompt_tokens)
    timed = lab.scenario.per_request_metrics
    return OpenAIFormat(str(body["model"]), include_usage, continuous, prompt_tokens, timed)


def _completions_format(body: dict[str, Any], prompt_tokens: int) -> WireFormat:
    include_usage, continuous = _usage_options(body)
    return CompletionsFormat(str(body["model"]), include_usage, continuous, prompt_tokens)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        texts = [p for p in content if isinstance(p, dict) and p.get("type", "text") == "text"]
        return " ".join(str(p.get("text", "")) for p in texts)
    return ""
