"""Talking to LLM servers, all the HTTP: apis/, kinds/ (one per server), transport/, engine/.
May import: client.core, httpx; never client.store, client.services, client.ui, client.cli.

backend = await make_backend("http://127.0.0.1:11434")       # api detected
backend = backend_for("http://127.0.0.1:8000", "openai")     # api known, no I/O
async with backend.chat(request) as stream:
    async for event in stream: ...
await backend.aclose()
"""

from __future__ import annotations

from typing import Literal

import httpx

from client.backends.address import normalize_url, server_url
from client.backends.apis.ollama.backend import ModelDetails, OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.base import Backend, ModelInfo
from client.backends.detect import DiscoveredServer, detect, discover_local_servers
from client.backends.errors import (
    AuthenticationFailed,
    BackendUnreachable,
    FirstByteTimeout,
    InvalidServerAddress,
    ModelLoading,
    ModelNotFound,
    ProtocolError,
    ServerError,
    StreamInterrupted,
    StreamStalled,
    TachyError,
)
from client.backends.kinds.kind import ServerKind
from client.backends.loading import while_loading
from client.backends.stream import ChatStream, HttpCall, StreamTimeouts

ApiChoice = Literal["auto", "ollama", "openai"]


def backend_for(
    url: str,
    api: str,
    api_key: str | None = None,
    client: httpx.AsyncClient | None = None,
) -> OllamaBackend | OpenAICompatBackend:
    """The backend for a server whose API is known ("ollama" or "openai")."""
    if api == OllamaBackend.api:
        return OllamaBackend(url, client=client)
    if api == OpenAICompatBackend.api:
        return OpenAICompatBackend(url, api_key=api_key, client=client)
    raise ValueError(f"unknown API {api!r}: use 'ollama' or 'openai' (or make_backend for 'auto')")


async def make_backend(
    url: str,
    api: str = "auto",
    api_key: str | None = None,
    client: httpx.AsyncClient | None = None,
) -> OllamaBackend | OpenAICompatBackend:
    """The backend for url; api "auto" asks the server which API it speaks."""
    if api == "auto":
        api = await detect(url, client)
    return backend_for(url, api, api_key, client)


__all__ = [
    "AuthenticationFailed",
    "Backend",
    "BackendUnreachable",
    "ChatStream",
    "DiscoveredServer",
    "FirstByteTimeout",
    "HttpCall",
    "InvalidServerAddress",
    "ModelDetails",
    "ModelInfo",
    "ModelLoading",
    "ModelNotFound",
    "OllamaBackend",
    "OpenAICompatBackend",
    "ProtocolError",
    "ServerError",
    "ServerKind",
    "StreamInterrupted",
    "StreamStalled",
    "StreamTimeouts",
    "TachyError",
    "backend_for",
    "detect",
    "discover_local_servers",
    "make_backend",
    "normalize_url",
    "server_url",
    "while_loading",
]
