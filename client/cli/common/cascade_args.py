"""--fast and --strong (a cascade of two models) for `tachy chat` and `tachy bench`.

    tachy chat --fast local --strong http://127.0.0.1:11434#qwen2.5:7b "question"

Each is URL#MODEL, URL alone (the server's first model) or `local` (the embedded
engine, `local#MODEL` too). The routes are opened here; the planner picks one per
question (client/services/planning/planner.py with client/services/planning/router.py).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from client.backends import backend_for, make_backend
from client.backends.address import server_url
from client.backends.base import Backend
from client.backends.engine.local_engine import LocalEngine, LocalEngineUnavailable
from client.backends.errors import InvalidServerAddress, TachyError
from client.cli.common.chat_common import first_model
from client.services.cascade.cascade import cascade_routes
from client.services.planning.planner import Route

LOCAL = "local"
UNKNOWN_MODEL = "unknown"  # a server that lists nothing: its request fails, the other answers


@dataclass(frozen=True, slots=True)
class Endpoint:
    url: str | None  # None: the embedded local engine
    model: str | None  # None: the server's first model

    @property
    def name(self) -> str:
        return self.url or LOCAL


def endpoint(text: str) -> Endpoint:
    """argparse type for URL#MODEL | URL | local[#MODEL]; a bad address is one sentence."""
    where, _, name = text.strip().partition("#")
    model = name.strip() or None
    if where.strip().lower() == LOCAL:
        return Endpoint(None, model)
    try:
        return Endpoint(server_url(where), model)
    except InvalidServerAddress as error:
        raise argparse.ArgumentTypeError(error.user_message) from error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fast",
        type=endpoint,
        metavar="URL#MODEL",
        help="a cascade's fast model (URL#MODEL, or 'local'); needs --strong",
    )
    parser.add_argument(
        "--strong",
        type=endpoint,
        metavar="URL#MODEL",
        help="a cascade's strong model (URL#MODEL, or 'local'); needs --fast",
    )


def wanted(args: argparse.Namespace) -> bool:
    """True when both halves were given; one alone is one clear sentence."""
    fast, strong = getattr(args, "fast", None), getattr(args, "strong", None)
    if (fast is None) != (strong is None):
        raise TachyError("A cascade needs both --fast URL#MODEL and --strong URL#MODEL.")
    return fast is not None


class OpenRoutes:
    """Opens a route to each endpoint (starting the local engine once if any is
    `local`) and closes them. A server that cannot be reached still gets a route: its
    request then fails before the first token, and says why."""

    def __init__(self, ends: Sequence[Endpoint], api_key: str | None = None) -> None:
        self._ends = tuple(ends)
        self._api_key = api_key
        self._engine: LocalEngine | None = None
        self._backends: list[Backend] = []

    async def __aenter__(self) -> list[Route]:
        return [await self._route(end) for end in self._ends]

    async def __aexit__(self, *exc: object) -> None:
        for backend in self._backends:
            await backend.aclose()
        if self._engine is not None:
            await self._engine.stop()

    async def _route(self, end: Endpoint) -> Route:
        url = end.url or await self._engine_url()
        try:
            api = "openai" if end.url is None else "auto"
            backend: Backend = await make_backend(url, api, self._api_key)
        except TachyError:  # unreachable or odd: the chat request says why, then falls back
            backend = backend_for(url, "openai", self._api_key)
        self._backends.append(backend)
        model = end.model or await _first_model_or_unknown(backend)
        if end.model:  # llama.cpp servers learn their kind from the list (prefill events)
            with contextlib.suppress(TachyError):
                await backend.list_models()
        return Route(backend, model, end.name, is_local=end.url is None)

    async def _engine_url(self) -> str:
        if self._engine is None:
            engine = LocalEngine()
            try:
                await engine.start()
            except LocalEngineUnavailable as error:
                raise TachyError(f"The local engine cannot start: {error}") from error
            self._engine = engine
        return self._engine.url


class CascadeRoutes(OpenRoutes):
    """Both routes of a cascade; when one fails before its first token, the other answers."""

    def __init__(self, fast: Endpoint, strong: Endpoint, api_key: str | None = None) -> None:
        super().__init__((fast, strong), api_key)

    async def __aenter__(self) -> list[Route]:
        fast, strong = await super().__aenter__()
        return cascade_routes(fast, strong)


async def _first_model_or_unknown(backend: Backend) -> str:
    try:
        return await first_model(backend)
    except TachyError:  # unreachable, or lists nothing: its request fails, the other answers
        return UNKNOWN_MODEL
