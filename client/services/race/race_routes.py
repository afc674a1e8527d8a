"""From the routes a user picks for a race (the Race dialog, a demo race) to RaceRoutes.

    setup = tachy.race_setup()
    routes = await setup.routes([RoutePick(choice, "llama3.2"), RoutePick(local, m, fresh=True)])
    ... race ...
    await setup.aclose()                  # stops the engines started for the race

A pick names a server and model and how its column runs: through the saved cascade
instead, with the local engine's speculative decoding on or off, with a keep-alive,
with the conversation's documents. The local engine answers a pick as the app runs it;
a pick asking another speculation than the app's engine has, or a `fresh` one (cold:
never asked anything), gets an engine of its own, started for the race and stopped
after it. A `warm` pick is warmed first, as the app warms a model at start.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from client.backends.base import Backend
from client.services.chat.session_settings import SessionSettings
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.planner import Route
from client.services.race.race import MAX_ROUTES, MIN_ROUTES, RaceError, RaceRoute
from client.services.servers.engine_idle import ManagedEngine
from client.services.servers.servers import ServerChoice

log = logging.getLogger(__name__)

SPECULATION = "ngram-mod"  # copied code at 2.5-3x the decode rate on the local engine

BackendOf = Callable[[ServerChoice], Awaitable[Backend]]
EngineOf = Callable[[str], ManagedEngine]  # a new local engine with this speculation
Warm = Callable[[Backend, str, ManagedEngine | None], Awaitable[None]]
CascadeOf = Callable[[], Awaitable[list[Route] | None]]


@dataclass(frozen=True, slots=True)
class RoutePick:
    choice: ServerChoice
    model: str
    cascade: bool = False  # the saved cascade's two models instead of `model`
    speculation: bool = False  # the local engine: with speculative decoding
    knowledge: bool = False  # the conversation's documents, as the chat uses them
    keep_alive: str | None = None  # Ollama: how long to keep the model loaded
    fresh: bool = False  # the local engine: one started for the race, cold
    warm: bool = False  # warmed as the app warms at start, before the race
    label: str = ""  # the column's name; "" names it by its route


class RaceSetup:
    def __init__(
        self,
        backend_of: BackendOf,
        app_engine: Callable[[], ManagedEngine],
        new_engine: EngineOf,
        cascade: CascadeOf,
        knowledge: KnowledgeStage | None = None,
        warm: Warm | None = None,
    ) -> None:
        self._backend_of = backend_of
        self._app_engine = app_engine
        self._new_engine = new_engine
        self._cascade = cascade
        self._knowledge = knowledge
        self._warm = warm
        self.engines: list[ManagedEngine] = []  # started for the race; stopped by aclose

    async def routes(self, picks: Sequence[RoutePick]) -> list[RaceRoute]:
        if not MIN_ROUTES <= len(picks) <= MAX_ROUTES:
            raise RaceError(f"A race needs {MIN_ROUTES} to {MAX_ROUTES} routes.")
        return [await self._race_route(pick) for pick in picks]

    async def aclose(self) -> None:
        engines, self.engines = self.engines, []
        for engine in engines:
            try:
                await engine.stop()
            except Exception:
                log.exception("could not stop a race's local engine")

    async def _race_route(self, pick: RoutePick) -> RaceRoute:
        engine = await self._engine_for(pick) if pick.choice.is_local else None
        choice = pick.choice if engine is None else replace(pick.choice, url=engine.url)
        backend = await self._backend_of(choice)
        model = pick.model or (engine.model if engine is not None else "")
        if pick.warm and self._warm is not None:
            await self._warm(backend, model, engine)
        routes: tuple[Route, ...] = (Route(backend, model, choice.name, choice.is_local),)
        if pick.cascade:
            routes = tuple(await self._cascade() or routes)
        settings = SessionSettings(keep_alive=pick.keep_alive)
        knowledge = self._knowledge if pick.knowledge else None
        spec = SPECULATION if pick.speculation and pick.choice.is_local else ""
        return RaceRoute(routes, settings, knowledge, spec, pick.label)

    async def _engine_for(self, pick: RoutePick) -> ManagedEngine:
        """The app's engine when it runs as the pick asks, else one for the race."""
        wanted = SPECULATION if pick.speculation else ""
        engine = self._app_engine()
        if pick.fresh or engine.settings.spec != wanted:
            engine = self._new_engine(wanted)
            self.engines.append(engine)
        if not engine.running:
            await engine.start()
        return engine
