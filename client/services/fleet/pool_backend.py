"""A pool as one backend: what the session, the warmer and the bench hold as a route's
backend, so a pool is chosen like a server.

`answer(request)` is the pool's stream (client/services/fleet/fleet_stream.py); the
rest of the Backend protocol (models, context length, token counts, warm-ups) asks the
first healthy member, as the servers serve the same model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from client.backends.base import Backend, ModelInfo
from client.backends.kinds.kind import ServerKind
from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatRequest
from client.services.fleet.book import FleetBook
from client.services.fleet.fleet_stream import FleetStream
from client.services.fleet.loads import LoadBoard, LoadReader
from client.services.fleet.order import order
from client.services.fleet.pool import Policy, ServerPool


class PoolBackend:
    def __init__(
        self,
        pool: ServerPool,
        backends: list[Backend],
        load_reader: LoadReader | None = None,
        book: FleetBook | None = None,
    ) -> None:
        if len(backends) != len(pool.members):
            raise ValueError("one backend per member")
        self.pool = pool
        self.backends = backends
        self.book = book or FleetBook([member.name for member in pool.members])
        self.loads = LoadBoard(len(backends), load_reader, self.book.in_flight)
        self._asking: set[asyncio.Future[list[ModelInfo]]] = set()  # list_models' others
        # As the Backend protocol has them: the first member's (the servers serve one model).
        self.api = backends[0].api
        self.base_url = backends[0].base_url

    # ---- the pool's own ---------------------------------------------------------------
    def answer(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> FleetStream:
        """One answer from the pool, by its policy; nothing is sent until iterated."""
        return FleetStream(self, request, timeouts)

    def member_backend(self, member: int) -> Backend:
        return self.backends[member]

    def model_of(self, member: int) -> str:
        """The model this member is asked for ("": the one the request names)."""
        return self.pool.model_of(self.pool.members[member])

    def member_name(self, member: int) -> str:
        return self.pool.members[member].name

    async def order(self) -> list[int]:
        """The members in the order the policy tries them."""
        everyone = list(range(len(self.backends)))
        if self.pool.policy is Policy.FAILOVER:
            reported: list[float | None] = [None for _ in everyone]
        else:
            reported = await self.loads.reported(everyone)
        return order(self.pool.policy, self.book, reported)

    def _first_member(self) -> int:
        healthy = [i for i in range(len(self.backends)) if self.book.healthy(i)]
        return healthy[0] if healthy else 0

    def _first(self) -> Backend:
        return self.backends[self._first_member()]

    # ---- the Backend protocol ---------------------------------------------------------
    @property
    def closed(self) -> bool:
        return all(backend.closed for backend in self.backends)

    @property
    def continues_trailing_assistant(self) -> bool:
        return all(backend.continues_trailing_assistant for backend in self.backends)

    @property
    def supports_continue_final_message(self) -> bool:
        return all(backend.supports_continue_final_message for backend in self.backends)

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        """A plain request to the first healthy member (a summary, the cascade's
        classifier); warm-ups go to every member (client/services/warming/pool_warming.py)."""
        member = self._first_member()
        model = self.model_of(member) or request.model
        return self.backends[member].chat(replace(request, model=model), timeouts)

    async def list_models(self) -> list[ModelInfo]:
        """The first member's that answers (one server down leaves the pool usable).
        Every member is asked at once: its answer tells its backend what server it is
        (a llama.cpp server is then asked for its prompt progress, so a hedge's loser
        notices its closed connection while it reads); the others' answers are not
        waited for."""
        asks = [asyncio.ensure_future(backend.list_models()) for backend in self.backends]
        for ask in asks:
            self._asking.add(ask)
            ask.add_done_callback(_forget(self._asking))
        failure: Exception | None = None
        first = self._first_member()
        for member in [first, *(m for m in range(len(self.backends)) if m != first)]:
            try:
                return await asks[member]
            except Exception as error:  # the next server may answer
                failure = error
        assert failure is not None
        raise failure

    async def running_models(self) -> list[ModelInfo] | None:
        return await self._first().running_models()

    async def context_length(self, model: str) -> int | None:
        return await self._first().context_length(model)

    @property
    def kind(self) -> ServerKind:
        return self._first().kind

    @property
    def server_name(self) -> str:
        return self._first().server_name

    async def server_kind(self) -> ServerKind:
        return await self._first().server_kind()

    async def count_tokens(self, text: str, model: str) -> int | None:
        return await self._first().count_tokens(text, model)

    async def aclose(self) -> None:
        """The members' backends belong to whoever made them (the app's BackendPool)."""
        asking = list(self._asking)
        for ask in asking:
            ask.cancel()
        if asking:
            await asyncio.wait(asking)
        await self.loads.aclose()


def _forget(asking: set[asyncio.Future[list[ModelInfo]]]) -> Callable[[Any], None]:
    """A member's answer not waited for: dropped, its failure read (never "never retrieved")."""

    def done(ask: asyncio.Future[list[ModelInfo]]) -> None:
        asking.discard(ask)
        if not ask.cancelled():
            ask.exception()

    return done


class PoolOpener:
    """A pool's StreamOpener (client/services/chat/stream_opener.py): one answer by
    its policy, named by the server of the pool that gave it."""

    fell_back: None = None  # a pool has no other model

    def __init__(self, pool: PoolBackend) -> None:
        self._pool = pool
        self.stream: FleetStream | None = None  # the one opened last

    def open(self, request: ChatRequest, timeouts: StreamTimeouts) -> FleetStream:
        self.stream = self._pool.answer(request, timeouts)
        return self.stream

    def answered_by(self) -> tuple[str, str] | None:
        stream = self.stream
        if stream is not None and stream.winner is not None:
            return stream.winner_name, stream.winner_model
        return None


def answer_stream_of(
    backend: Backend, request: ChatRequest, timeouts: StreamTimeouts | None = None
) -> ChatStream | FleetStream:
    """A pool's answer, or a server's own stream."""
    if isinstance(backend, PoolBackend):
        return backend.answer(request, timeouts)
    return backend.chat(request, timeouts)
