"""The lab as Ollama pulling and deleting models: POST /api/pull and DELETE /api/delete.

/api/pull streams NDJSON lines the way Ollama 0.x does: "pulling manifest", then one
"pulling <digest>" line per layer with "digest", "total" and "completed" bytes (the
model's weights first, then its small template/licence/params layers), "verifying
sha256 digest", "writing manifest", "success". Bytes arrive at PULL_BYTES_PER_S, a line
every PROGRESS_EVERY_S. A name the lab's small registry does not hold ends in
{"error": "pull model manifest: file does not exist"}, as Ollama's does. A pulled
model is then listed by /api/tags, described by /api/show and answers chats.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from aiohttp import web

from client.lab.dialects.wire import go_dumps, ollama_error
from client.lab.running.state import LabState, canonical

PULL_BYTES_PER_S = 400e6  # a fast local mirror; real downloads are slower
PROGRESS_EVERY_S = 0.05
# What the lab's registry holds: name -> size of the weights in bytes (Ollama's sizes).
REGISTRY = {
    "smollm2:135m": 270_898_592,
    "qwen2.5:0.5b": 397_821_319,
    "gemma3:1b": 815_319_791,
    "llama3.2:1b": 1_321_098_329,
    "llama3.2:3b": 2_019_393_189,
}
SMALL_LAYERS = (1_429, 7_711, 96)  # template, licence, params
NOT_FOUND = "pull model manifest: file does not exist"


def routes(lab: LabState) -> list[web.RouteDef]:
    async def pull(request: web.Request) -> web.StreamResponse:
        name = await _model_name(request)
        if isinstance(name, web.Response):
            return name
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        size = REGISTRY.get(name)
        await _line(response, {"status": "pulling manifest"})
        if size is None:
            await _line(response, {"error": NOT_FOUND})
            return response
        rate = float(getattr(lab, "pull_bytes_per_s", PULL_BYTES_PER_S))  # tests slow it
        for layer_size in (size, *SMALL_LAYERS):
            await _layer(response, name, layer_size, rate)
        for status in ("verifying sha256 digest", "writing manifest", "success"):
            await _line(response, {"status": status})
        lab.pulled[name] = size
        lab.removed.discard(name)
        return response

    async def delete(request: web.Request) -> web.Response:
        name = await _model_name(request)
        if isinstance(name, web.Response):
            return name
        if not lab.knows(name):
            return ollama_error(404, f"model '{name}' not found")
        lab.pulled.pop(name, None)
        lab.removed.add(name)
        return web.Response(status=200)

    return [web.post("/api/pull", pull), web.delete("/api/delete", delete)]


async def _layer(response: web.StreamResponse, name: str, size: int, rate: float) -> None:
    digest = "sha256:" + hashlib.sha256(f"{name}:{size}".encode()).hexdigest()
    status = f"pulling {digest[7:19]}"
    step = max(1, int(rate * PROGRESS_EVERY_S))
    done = 0
    await _line(response, {"status": status, "digest": digest, "total": size})
    while done < size:
        if size > step:  # a small layer arrives in one line, as Ollama's do
            await asyncio.sleep(PROGRESS_EVERY_S)
        done = min(size, done + step)
        await _line(
            response, {"status": status, "digest": digest, "total": size, "completed": done}
        )


async def _model_name(request: web.Request) -> str | web.Response:
    """The model a pull or delete names (as "model" or the older "name"), canonical; or
    the error to answer when it names none."""
    body = await _body(request)
    raw = str(body.get("model") or body.get("name") or "")
    if not raw:
        return ollama_error(400, "model is required")
    return canonical(raw)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.read() or b"{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


async def _line(response: web.StreamResponse, obj: dict[str, Any]) -> None:
    await response.write((go_dumps(obj) + "\n").encode())
