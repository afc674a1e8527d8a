"""What the server says about itself, for the HUD's server view. Qt-free.

The first poll asks the endpoints of the kinds known by one of their own (a router's
/list_workers). Each poll reads the path its kind names (GET /api/ps for Ollama,
/workers for a router, /metrics for an OpenAI-compatible server, whose text tells the
kind), and hands it to that kind's reader (client/backends/kinds/<kind>/), kept between
polls for its rates.
Never raises: a failure becomes a snapshot with `error` set, in one plain sentence.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from client.backends.figures.fetch import ServerFigures
from client.backends.figures.snapshot import FiguresReader, LoadedModel, ServerSnapshot, failure
from client.backends.kinds import registry
from client.backends.kinds.kind import ServerKind
from client.backends.kinds.vllm_router.metrics import SPREADING_POLICIES

__all__ = [
    "LoadedModel",
    "ServerFigures",
    "ServerSnapshot",
    "ServerStatsPoller",
    "lists_models",
    "not_given",
    "policies",
    "turned_unhealthy",
    "warming_helps",
]


def not_given(snap: ServerSnapshot) -> frozenset[str]:
    """The snapshot's figures its server's kind never fills (the view hides their rows)."""
    kind = registry.kind_named(snap.kind)
    return kind.figures_not_given if kind is not None else frozenset()


def lists_models(snap: ServerSnapshot | None, api: str = "") -> bool:
    """Whether the server's figures are its loaded models (a table), by its snapshot's
    kind, or before one by its API's."""
    kind = registry.kind_named(snap.kind) if snap is not None else registry.kind_for_api(api)
    return kind is not None and kind.lists_loaded_models


def turned_unhealthy(before: ServerSnapshot | None, after: ServerSnapshot) -> list[str]:
    """The workers a router said were healthy (or had not listed) and now says are not."""
    was = {w.url: w.healthy for w in before.workers} if before is not None else {}
    return [w.url for w in after.workers if w.healthy is False and was.get(w.url) is not False]


def policies(snap: ServerSnapshot | None) -> list[str]:
    """The routing policies a router's metrics name (its decisions), in order."""
    return sorted({d.policy for d in snap.decisions}) if snap is not None else []


def warming_helps(snap: ServerSnapshot | None) -> bool | None:
    """False when a router spreads requests whatever their prompt (round_robin, random,
    power_of_two), so a warm-up most likely warms another worker than the one that
    answers; True for a policy that routes by prefix or session; None: not known."""
    named = policies(snap)
    if not named:
        return None
    return not all(policy in SPREADING_POLICIES for policy in named)


class ServerStatsPoller:
    """A few short GETs per poll; never raises, never waits long."""

    def __init__(
        self,
        figures: ServerFigures,
        base_url: str,
        api: str,
        model: str | None = None,
        metrics_url: str | None = None,
    ) -> None:
        self._figures = figures
        self.base_url = base_url.rstrip("/")
        self.api = api  # "ollama" or "openai": which path is read first
        self.model = model
        self.metrics_url = metrics_url  # a router's own metrics, as its settings give them
        self.clock: Callable[[], float] = time.monotonic
        self._readers: dict[str, FiguresReader] = {}  # by kind name, kept for rates
        self._known: ServerKind | None = None  # once probed

    async def poll(self) -> ServerSnapshot:
        kind = self._known or await self._probe()
        reply = await self._figures.get(self.base_url, kind.figures_path)
        failed = failure(reply)
        if failed is not None:
            return failed
        if kind.figures_reader is None:  # the API's generic kind: its /metrics tells which
            kind = registry.kind_by_metrics(reply.text) or kind
        if kind.figures_reader is None:
            return ServerSnapshot("", error=registry.no_figures_sentence())
        snap = await self._reader(kind).read(reply)
        snap.name = snap.name or (kind.display_name if snap.kind else "")
        return snap

    async def _probe(self) -> ServerKind:
        """A kind known by an endpoint of its own (a router: its /metrics and /version
        are one worker's), asked on the first poll that gets an answer; else the API's."""
        family = registry.kind_for_api(self.api)
        for kind in registry.probed_kinds(self.api):
            assert kind.probe is not None
            reply = await self._figures.get(self.base_url, kind.probe.path)
            if reply.error:
                return family  # not answering: asked again at the next poll
            if failure(reply) is None and kind.probe.name_of(reply.json()) is not None:
                self._known = kind
                return kind
        self._known = family
        return family

    def _reader(self, kind: ServerKind) -> FiguresReader:
        if kind.name not in self._readers:
            assert kind.figures_reader is not None
            reader = kind.figures_reader(
                self._figures, self.base_url, self.model, lambda: self.clock()
            )
            use_metrics = getattr(reader, "use_metrics", None)  # a router's, given apart
            if self.metrics_url and use_metrics is not None:
                use_metrics(self.metrics_url)
            self._readers[kind.name] = reader
        return self._readers[kind.name]
