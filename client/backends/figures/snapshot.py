"""One reading of what a server says about itself, whatever its kind, and the reader
each kind provides to take it (client/backends/kinds/<kind>/)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from client.backends.figures.fetch import Reply, ServerFigures

FOREVER_AFTER_S = 10 * 365 * 24 * 3600  # Ollama's keep_alive -1 gives a far-future expiry


@dataclass(frozen=True, slots=True)
class LoadedModel:
    name: str
    size: int | None = None
    size_vram: int | None = None
    expires_at: datetime | None = None

    def seconds_left(self, now: datetime) -> float | None:
        """Until the server unloads it; None when it stays loaded (keep_alive -1)."""
        if self.expires_at is None:
            return None
        left = (self.expires_at - now).total_seconds()
        return None if left > FOREVER_AFTER_S else max(left, 0.0)


@dataclass(frozen=True, slots=True)
class WorkerState:
    """One worker behind a router, as the router says."""

    url: str
    healthy: bool | None = None
    load: float | None = None  # requests in flight through the router (GET /workers)
    reported_load: float | None = None  # the worker's own (GET /get_loads); None: not said
    processed: float | None = None  # requests it served, in all (the router's metrics)
    processed_recent: float | None = None  # of them, over the snapshot's recent_s
    breaker: str | None = None  # its circuit breaker: closed, open, half_open


@dataclass(frozen=True, slots=True)
class RouteDecision:
    """How often a router's policy picked one worker (its metrics)."""

    policy: str  # round_robin, cache_aware, ...
    worker: str
    total: float
    recent: float | None = None  # over the snapshot's recent_s


@dataclass(slots=True)
class ServerSnapshot:
    kind: str  # the server kind's name (client/backends/kinds), "" when none was recognised
    name: str = ""  # as users call it ("vLLM router · 2 workers"), when the kind says
    running: float | None = None
    waiting: float | None = None
    kv_cache_use: float | None = None  # 0..1
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    ttft_n: int = 0
    spec_acceptance: float | None = None  # accepted / draft tokens, 0..1
    prompt_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    cache_hit_rate: float | None = None  # prompt tokens from the cache / all, 0..1
    busy_slots: int | None = None
    total_slots: int | None = None
    slot_ctx: int | None = None  # context tokens of each slot
    sleeping: bool | None = None  # the server unloaded the model after idle
    engine_state: str | None = None  # e.g. vLLM's awake, weights_offloaded, discard_all
    version: str | None = None  # the server's own version, where it says
    ttft_buckets: list[tuple[float, float]] = field(default_factory=list)  # lifetime
    recent_ttft_p50_ms: float | None = None  # over the last RECENT_S (histogram deltas)
    recent_ttft_p95_ms: float | None = None
    recent_ttft_n: int = 0
    recent_s: float | None = None  # how long that window really is (shorter at first)
    counters: dict[str, float] = field(default_factory=dict)  # for the next poll's rates
    models: list[LoadedModel] = field(default_factory=list)
    workers: list[WorkerState] = field(default_factory=list)  # a router's
    decisions: list[RouteDecision] = field(default_factory=list)  # a router's, by policy
    metrics_url: str | None = None  # where a router's own metrics were read, when they were
    error: str = ""  # a sentence for the user when the server offers nothing


class FiguresReader(Protocol):
    """A kind's reader for one server, kept between polls (rates need the last one)."""

    async def read(self, reply: Reply) -> ServerSnapshot:
        """The snapshot from the answer to its kind's `figures_path`, plus any other
        short GETs the kind needs. Never raises."""
        ...


# A kind's reader, made for one server: (figures, base_url, model, clock) -> reader.
FiguresReaderMaker = Callable[[ServerFigures, str, str | None, Callable[[], float]], FiguresReader]


def failure(reply: Reply) -> ServerSnapshot | None:
    """The snapshot saying why a reply gives no figures; None when it is fine."""
    if reply.error:
        return ServerSnapshot("", error=reply.error)
    if reply.status == 404:
        hint = " (start llama.cpp server with --metrics)" if reply.path == "/metrics" else ""
        return ServerSnapshot("", error=f"This server does not offer {reply.path}{hint}.")
    if reply.status is not None and reply.status >= 400:
        return ServerSnapshot("", error=f"The server's {reply.path} answered HTTP {reply.status}.")
    return None


def json_if_ok(reply: Reply) -> object:
    return reply.json() if failure(reply) is None else None
