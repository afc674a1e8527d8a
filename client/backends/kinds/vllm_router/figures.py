"""A router's side of the server view: its workers from GET /workers and /get_loads, and
its own metrics (vllm-router's --prometheus-port) where given or found; never its /metrics
or /version (those are one worker's, forwarded)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urlsplit

from client.backends.figures.fetch import Reply, ServerFigures
from client.backends.figures.snapshot import RouteDecision, ServerSnapshot, WorkerState, json_if_ok
from client.backends.kinds.vllm_router.metrics import (
    DEFAULT_PORT,
    RouterMetrics,
    is_router_metrics,
    parse_router_metrics,
)
from client.backends.kinds.vllm_router.timings import KIND_NAME
from client.backends.kinds.vllm_router.workers import named, reported_loads, workers

RECENT_S = 60.0  # the rates' window: the last minute
LOOK_AGAIN_S = 30.0  # a router's metrics not found: asked again this much later


def parse_workers(answer: object) -> ServerSnapshot:
    found = workers(answer)
    if found is None:
        # The view's sentence for an answer it cannot read (translated as it is).
        return ServerSnapshot("", error="The server's /workers did not answer JSON.")
    snap = ServerSnapshot(KIND_NAME, named(len(found)))
    snap.workers = [WorkerState(w.url, w.healthy, w.load) for w in found]
    loads = [w.load for w in found if w.load is not None]
    snap.running = sum(loads) if loads else None  # in flight through the router
    return snap


def metrics_candidates(base_url: str) -> list[str]:
    """Where a router's own metrics may be, when not given: its default port, same host."""
    host = urlsplit(base_url).hostname or "127.0.0.1"
    return [f"http://{host}:{DEFAULT_PORT}"]


class RouterFigures:
    """The FiguresReader of a router: its workers, their health and load, and its own
    metrics with their rates over the last minute."""

    def __init__(
        self, figures: ServerFigures, base_url: str, model: str | None, clock: Callable[[], float]
    ) -> None:
        self.base_url = base_url
        self._figures = figures
        self._clock = clock
        self.metrics_url: str | None = None  # given (the server's settings) or found
        self._given = False
        self._looked_at: float | None = None
        self._history: deque[tuple[float, dict[str, float]]] = deque()

    def use_metrics(self, url: str) -> None:
        """The router's metrics address, as the user gave it (http://host:port)."""
        self.metrics_url, self._given = url.rstrip("/"), True

    async def read(self, reply: Reply) -> ServerSnapshot:
        snap = parse_workers(reply.json())
        if snap.error:
            return snap
        loads = reported_loads(json_if_ok(await self._figures.get(self.base_url, "/get_loads")))
        snap.workers = [replace(w, reported_load=loads.get(w.url)) for w in snap.workers]
        metrics = await self._metrics({w.url for w in snap.workers})
        if metrics is not None:
            self._add_metrics(snap, metrics)
        return snap

    async def _metrics(self, urls: set[str]) -> RouterMetrics | None:
        """Its metrics; found ones only when they name its own workers (another router
        may listen on the default port of the same host)."""
        if self.metrics_url is None and not self._time_to_look():
            return None
        for url in [self.metrics_url] if self.metrics_url else metrics_candidates(self.base_url):
            reply = await self._figures.get(url, "/metrics")
            if not reply.error and reply.status == 200 and is_router_metrics(reply.text):
                metrics = parse_router_metrics(reply.text)
                if self._given or set(metrics.healthy) == urls:
                    self.metrics_url = url
                    return metrics
        if not self._given:
            self.metrics_url = None  # gone (or never there): looked for again later
        return None

    def _time_to_look(self) -> bool:
        now = self._clock()
        if self._looked_at is not None and now - self._looked_at < LOOK_AGAIN_S:
            return False
        self._looked_at = now
        return True

    def _add_metrics(self, snap: ServerSnapshot, metrics: RouterMetrics) -> None:
        recent, window = self._recent(metrics.counters())
        snap.metrics_url, snap.recent_s = self.metrics_url, window
        served = None
        if recent is not None:
            served = {
                k.removeprefix("processed "): n
                for k, n in recent.items()
                if k.startswith("processed ")
            }
        snap.workers = [
            replace(
                w,
                healthy=metrics.healthy.get(w.url, w.healthy),
                processed=metrics.processed.get(w.url, 0.0),
                processed_recent=None if served is None else served.get(w.url, 0.0),
                breaker=metrics.breaker.get(w.url),
            )
            for w in snap.workers
        ]
        snap.decisions = [
            RouteDecision(policy, worker, total, recent.get(f"decisions {policy} {worker}", 0.0))
            if recent is not None
            else RouteDecision(policy, worker, total)
            for (policy, worker), total in sorted(metrics.decisions.items())
        ]

    def _recent(self, counters: dict[str, float]) -> tuple[dict[str, float] | None, float | None]:
        """Each counter's increase over the last minute (shorter at first), and the window
        really spanned; None before a second reading."""
        now = self._clock()
        self._history.append((now, counters))
        while len(self._history) > 2 and now - self._history[1][0] >= RECENT_S:
            self._history.popleft()
        then, before = self._history[0]
        if then == now:
            return None, None
        return {key: max(n - before.get(key, 0.0), 0.0) for key, n in counters.items()}, now - then
