"""Ollama's native API (ollama docs/api.md): /api/chat, /api/generate, tags, ps, show, version."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from aiohttp import web

from client.lab import tools
from client.lab.dialects.wire import OllamaFormat, go_dumps, ollama_error
from client.lab.endpoints import vision
from client.lab.endpoints.upstream_models import model_names
from client.lab.replies.replying import CONVERSATION_HEADER, Ask, answer
from client.lab.running.state import LabState, canonical
from client.lab.scenarios.models import KeepAliveError, created_at, expires_at_iso, parse_keep_alive
from client.lab.text.chat_template import chat_prompt_tokens, with_images
from client.lab.text.corpus import tokenize
from client.lab.text.embedding import embed_texts

VERSION = "0.12.6"
MODIFIED_AT = "2026-11-30T09:00:00.000000000Z"
SIZE = 807_694_464  # a 1B model at Q4_K_M, roughly


class BadRequest(Exception):
    pass


def routes(lab: LabState) -> list[web.RouteDef]:
    async def chat(request: web.Request) -> web.StreamResponse:
        return await _generation(request, lab, "chat")

    async def generate(request: web.Request) -> web.StreamResponse:
        return await _generation(request, lab, "generate")

    async def tags(request: web.Request) -> web.Response:
        names = await model_names(lab)
        return _json({"models": [_model_entry(lab, name) for name in names]})

    async def ps(request: web.Request) -> web.Response:
        now = asyncio.get_running_loop().time()
        models = []
        for loaded in lab.models.running(now):
            entry = _model_entry(lab, loaded.name, with_modified=False)
            entry["expires_at"] = expires_at_iso(loaded, now)
            entry["size_vram"] = SIZE
            entry["context_length"] = lab.scenario_for(loaded.name).context_length
            models.append(entry)
        return _json({"models": models})

    async def show(request: web.Request) -> web.Response:
        try:
            body = await _read_json(request)
        except BadRequest as exc:
            return ollama_error(400, str(exc))
        name = str(body.get("model") or body.get("name") or "")
        if not name:
            return ollama_error(400, "model is required")
        if not lab.knows(name):
            return ollama_error(404, f"model '{name}' not found")
        return _json(_show(lab, name))

    async def embed(request: web.Request) -> web.Response:
        return await _embed(request, lab, legacy=False)

    async def embeddings(request: web.Request) -> web.Response:
        return await _embed(request, lab, legacy=True)

    async def version(request: web.Request) -> web.Response:
        return _json({"version": VERSION})

    async def root(request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    return [
        web.post("/api/chat", chat),
        web.post("/api/generate", generate),
        web.get("/api/tags", tags),
        web.get("/api/ps", ps),
        web.post("/api/show", show),
        web.post("/api/embed", embed),
        web.post("/api/embeddings", embeddings),
        web.get("/api/version", version),
        web.get("/", root),
    ]


async def _generation(request: web.Request, lab: LabState, endpoint: str) -> web.StreamResponse:
    try:
        body = await _read_json(request)
        model = str(body.get("model") or "")
        if not model:
            raise BadRequest("model is required")
        keep_alive = body.get("keep_alive")
        keep_alive_s = (
            lab.default_keep_alive(model) if keep_alive is None else parse_keep_alive(keep_alive)
        )
    except (BadRequest, KeepAliveError) as exc:
        return ollama_error(400, str(exc))
    messages = _messages(body, endpoint)
    if endpoint == "chat" and messages and tools.answers(lab, body):
        return await tools.ollama_tool_reply(request, lab, body)
    if not messages:
        return await _load_or_unload(lab, model, endpoint, keep_alive_s)
    raw_options = body.get("options")
    options: dict[str, Any] = raw_options if isinstance(raw_options, dict) else {}
    think = body.get("think")
    own = lab.scenario_for(model)
    want_thinking = bool(think) if think is not None else own.reasoning_always
    num_predict = options.get("num_predict")
    try:
        images = vision.ollama_images(body.get("messages")) if endpoint == "chat" else []
    except vision.BadImage as exc:
        return ollama_error(400, str(exc))
    if images and lab.knows(model) and not own.vision:
        return ollama_error(*vision.refusal(own, "ollama"))
    pairs = [(m["role"], m["content"]) for m in messages]
    prompt = chat_prompt_tokens(pairs, own.system_prompt_tokens)
    ask = Ask(
        model=model,
        prompt=with_images(prompt, vision.image_tokens(own, images)),
        stream=body.get("stream", True) is not False,
        want_thinking=want_thinking and own.reasoning_tokens > 0,
        max_tokens=int(num_predict) if isinstance(num_predict, int | float) else None,
        keep_alive_s=keep_alive_s,
        seed=options.get("seed") if isinstance(options.get("seed"), int) else None,
        openai_body=_openai_body(model, messages, options),
        conversation=request.headers.get(CONVERSATION_HEADER),
        encode_s=vision.encode_s(own, images),
        # Ollama's template leaves a final assistant message open: it goes on from it.
        continues=str(pairs[-1][1]) if pairs[-1][0] == "assistant" else "",
    )
    return await answer(request, lab, ask, OllamaFormat(model, endpoint))


def _messages(body: dict[str, Any], endpoint: str) -> list[dict[str, str]]:
    if endpoint == "chat":
        raw = body.get("messages") or []
        return [
            {"role": str(m.get("role", "user")), "content": str(m.get("content") or "")}
            for m in raw
            if isinstance(m, dict)
        ]
    prompt = body.get("prompt")
    if not prompt:
        return []
    system = body.get("system")
    messages = [{"role": "system", "content": str(system)}] if system else []
    return [*messages, {"role": "user", "content": str(prompt)}]


def _openai_body(
    model: str, messages: list[dict[str, str]], options: dict[str, Any]
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": messages}
    for ollama_key, openai_key in (
        ("num_predict", "max_tokens"),
        ("temperature", "temperature"),
        ("seed", "seed"),
        ("stop", "stop"),
        ("top_p", "top_p"),
    ):
        if ollama_key in options:
            body[openai_key] = options[ollama_key]
    return body


async def _load_or_unload(
    lab: LabState, model: str, endpoint: str, keep_alive_s: float
) -> web.Response:
    """An empty chat (or a generate without prompt) loads the model, or unloads it with 0."""
    if not lab.knows(model):
        return ollama_error(404, f"model '{model}' not found")
    loop = asyncio.get_running_loop()
    name = canonical(model)
    if keep_alive_s <= 0:
        lab.models.unload(name)
        reason = "unload"
    else:
        wait = lab.models.acquire(
            name, loop.time(), lab.scenario_for(name).load_ms / 1000.0, keep_alive_s
        )
        try:
            await asyncio.sleep(wait)
        finally:
            lab.models.release(name, loop.time(), keep_alive_s)
        reason = "load"
    head: dict[str, Any] = {"model": model, "created_at": created_at()}
    if endpoint == "chat":
        obj = {**head, "message": {"role": "assistant", "content": ""}, "done_reason": reason}
        obj["done"] = True
    else:
        obj = {**head, "response": "", "done": True, "done_reason": reason}
    return _json(obj)


def _model_entry(lab: LabState, name: str, with_modified: bool = True) -> dict[str, Any]:
    name = canonical(name)
    entry: dict[str, Any] = {"name": name, "model": name}
    if with_modified:
        entry["modified_at"] = MODIFIED_AT
    entry["size"] = SIZE
    entry["digest"] = hashlib.sha256(name.encode()).hexdigest()
    entry["details"] = _details(lab, name)
    return entry


def _details(lab: LabState, name: str) -> dict[str, Any]:
    family = lab.scenario_for(name).family
    return {
        "parent_model": "",
        "format": "gguf",
        "family": family,
        "families": [family],
        "parameter_size": "1.2B",
        "quantization_level": "Q4_K_M",
    }


def _show(lab: LabState, name: str) -> dict[str, Any]:
    s = lab.scenario_for(name)
    capabilities = ["completion"] + (["thinking"] if s.reasoning_tokens else [])
    capabilities += ["vision"] if s.vision else []
    return {
        "modelfile": f"# Modelfile generated by the Tachy latency lab\nFROM {canonical(name)}\n",
        "parameters": f"num_ctx                        {s.context_length}",
        "template": "{{ .Prompt }}",
        "details": _details(lab, name),
        "model_info": {
            "general.architecture": s.family,
            "general.file_type": 15,
            "general.parameter_count": 1_235_814_432,
            "general.quantization_version": 2,
            f"{s.family}.attention.head_count": 32,
            f"{s.family}.attention.head_count_kv": 8,
            f"{s.family}.attention.layer_norm_rms_epsilon": 0.00001,
            f"{s.family}.block_count": 16,
            f"{s.family}.context_length": s.context_length,
            f"{s.family}.embedding_length": 2048,
            f"{s.family}.feed_forward_length": 8192,
            f"{s.family}.rope.dimension_count": 64,
            f"{s.family}.rope.freq_base": 500000,
            f"{s.family}.vocab_size": 128256,
            "tokenizer.ggml.bos_token_id": 128000,
            "tokenizer.ggml.eos_token_id": 128009,
            "tokenizer.ggml.merges": [],  # filled only with verbose, as Ollama does
            "tokenizer.ggml.model": "gpt2",
            "tokenizer.ggml.pre": "llama-bpe",
            "tokenizer.ggml.token_type": [],
            "tokenizer.ggml.tokens": [],
            **({f"{s.family}.vision.image_size": s.image_size} if s.vision else {}),
        },
        "capabilities": capabilities,
        "modified_at": MODIFIED_AT,
    }


async def _read_json(request: web.Request) -> dict[str, Any]:
    """The body as Ollama's gin handlers bind it; their error texts on a bad one."""
    raw = await request.read()
    if not raw.strip():
        raise BadRequest("missing request body")  # ShouldBindJSON's io.EOF
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"invalid character in JSON: {exc.args[0]}") from exc
    if not isinstance(body, dict):
        raise BadRequest("json: cannot unmarshal into Go value of type api.Request")
    return body


async def _embed(request: web.Request, lab: LabState, legacy: bool) -> web.Response:
    """/api/embed (input: text or list) and the older /api/embeddings (prompt)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        body = await _read_json(request)
    except BadRequest as exc:
        return ollama_error(400, str(exc))
    model = str(body.get("model") or "")
    if not lab.knows(model):
        return ollama_error(404, f"model '{model}' not found")
    raw = body.get("prompt", "") if legacy else body.get("input")
    texts = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else None
    if (texts is None and raw is not None) or not all(isinstance(t, str) for t in texts or []):
        return ollama_error(400, "invalid input type")
    texts = [t for t in texts or [] if t]
    vectors = embed_texts(texts)
    if legacy:
        return _json({"embedding": vectors[0] if vectors else []})
    # No chat template for an embedding: the text's tokens and the model's start token.
    tokens = sum(len(tokenize(t)) + 1 for t in texts)
    total = max(1, round((loop.time() - started) * 1e9))
    out: dict[str, Any] = {"model": model, "embeddings": vectors}
    if texts:
        out |= {"total_duration": total, "load_duration": max(1, total // 10)}
        out["prompt_eval_count"] = tokens
    return _json(out)


def _json(obj: dict[str, Any]) -> web.Response:
    return web.Response(text=go_dumps(obj), content_type="application/json")
