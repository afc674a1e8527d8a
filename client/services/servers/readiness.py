"""Whether a server that answers is ready to answer a question.

A recent llama.cpp server lists its models while it still loads one (its
middleware_server_state lets /v1/models through) and answers everything else 503
"Loading model", /health included. So a model list alone does not say the server is
ready: for an OpenAI-compatible server /health is asked too, and its "Loading model"
is raised as `ModelLoading` (a wait, not a failure). A server without /health (LM
Studio, a proxy) is taken at its list.

    models = await listed_when_ready(backend)   # raises ModelLoading while it loads
"""

from __future__ import annotations

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.base import Backend, ModelInfo
from client.backends.errors import ModelLoading, TachyError
from client.backends.http_json import request_json


async def listed_when_ready(backend: Backend) -> list[ModelInfo]:
    """The server's models, once it is ready to answer (ModelLoading until then)."""
    models = await backend.list_models()
    if isinstance(backend, OpenAICompatBackend):
        url = f"{backend.base_url}/health"
        try:
            await request_json(backend.client, "GET", url, headers=backend.auth_headers())
        except ModelLoading:
            raise
        except TachyError:
            pass  # no /health here: the list is the only sign
    await backend.server_kind()  # a router, known by its own endpoint, not what it forwards
    return models
