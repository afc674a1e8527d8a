"""A router's side of the server view: its workers from GET /workers, never its /metrics
or /version (those are one worker's, forwarded)."""

from __future__ import annotations

from collections.abc import Callable

from client.backends.figures.fetch import Reply, ServerFigures
from client.backends.figures.snapshot import ServerSnapshot, WorkerState
from client.backends.kinds.vllm_router.workers import named, workers

KIND_NAME = "vllm_router"


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


class RouterFigures:
    """The FiguresReader of a router: its workers, their health and load."""

    def __init__(
        self, figures: ServerFigures, base_url: str, model: str | None, clock: Callable[[], float]
    ) -> None:
        self.base_url = base_url

    async def read(self, reply: Reply) -> ServerSnapshot:
        return parse_workers(reply.json())
