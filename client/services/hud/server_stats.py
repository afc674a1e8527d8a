"""What the server says about itself, for the HUD's server view. Qt-free.

Each poll reads the path its kind names (GET /api/ps for Ollama, /metrics for an
OpenAI-compatible server), asks the registry which kind wrote the answer, and hands it
to that kind's reader (client/backends/kinds/<kind>/), kept between polls for its rates.
Never raises: a failure becomes a snapshot with `error` set, in one plain sentence.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from client.backends.figures.fetch import ServerFigures
from client.backends.figures.snapshot import FiguresReader, LoadedModel, ServerSnapshot, failure
from client.backends.kinds import registry
from client.backends.kinds.kind import ServerKind

__all__ = ["LoadedModel", "ServerFigures", "ServerSnapshot", "ServerStatsPoller"]


class ServerStatsPoller:
    """A few short GETs per poll; never raises, never waits long."""

    def __init__(
        self, figures: ServerFigures, base_url: str, api: str, model: str | None = None
    ) -> None:
        self._figures = figures
        self.base_url = base_url.rstrip("/")
        self.api = api  # "ollama" or "openai": which path is read first
        self.model = model
        self.clock: Callable[[], float] = time.monotonic
        self._readers: dict[str, FiguresReader] = {}  # by kind name, kept for rates

    async def poll(self) -> ServerSnapshot:
        family = registry.kind_for_api(self.api)
        reply = await self._figures.get(self.base_url, family.figures_path)
        failed = failure(reply)
        if failed is not None:
            return failed
        kind = family if family.figures_reader else registry.kind_by_metrics(reply.text)
        if kind is None or kind.figures_reader is None:
            return ServerSnapshot("", error=registry.no_figures_sentence())
        return await self._reader(kind).read(reply)

    def _reader(self, kind: ServerKind) -> FiguresReader:
        if kind.name not in self._readers:
            assert kind.figures_reader is not None
            self._readers[kind.name] = kind.figures_reader(
                self._figures, self.base_url, self.model, lambda: self.clock()
            )
        return self._readers[kind.name]
