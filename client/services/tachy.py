"""The app's parts, built once and owned here: the composition root (Qt-free).

    tachy = Tachy(open_stores())
    session = await tachy.use_server(choice)          # a server and its first model
    generation = session.generate(None, "Why is the sky blue?")
    ...
    await tachy.aclose()

It owns the stores, the saved servers and one backend per server, the local engine,
the chat session (made when the first server is used), the warming policy with its
TTFT predictors and prompt budget, the knowledge base and the saved cascade. The
window (client/ui/shell/app.py) builds one and hands it, typed, to its controllers,
which only adapt it to widgets; `tachy chat`, `tachy bench` and the tests build the
same object. docs/architecture.md follows a message through it.

It owns one event bus (`events`, client/services/events.py): its session's turns
publish TurnStarted, StateChanged and AnswerFinished, the warmer and the reaching of a
server that does not answer ServerStateChanged,
and its own policies subscribe (the TTFT predictors learn from every answer, whoever
asked; warming hears each turn), so `tachy chat` learns as the window does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from client.backends.base import Backend
from client.services.cascade.cascade import cascade_routes
from client.services.cascade.saved_cascade import CascadePart, SavedCascade
from client.services.chat.session import ChatSession
from client.services.doctor.last_answer import LastAnswer
from client.services.events import AnswerFinished, EventBus, ServerStateChanged
from client.services.fleet.pool import ServerPool, pool_choice, pool_name
from client.services.fleet.pool_backend import PoolBackend
from client.services.fleet.saved_pools import SavedPools
from client.services.hud.hud_feed import HudFeed
from client.services.hud.server_load import ServerLoads
from client.services.images.vision import ModelVision
from client.services.knowledge.knowledge import KnowledgeBase
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.planner import Route
from client.services.race.race_routes import RaceSetup
from client.services.servers.engine_idle import ManagedEngine
from client.services.servers.model_status import ModelStatus
from client.services.servers.reachability import Backoff, Reach, Waiting
from client.services.servers.saved_servers import SavedServers
from client.services.servers.servers import (
    BackendPool,
    ServerChoice,
    make_local_engine,
    with_spec,
)
from client.services.settings.chat_defaults import SavedChatDefaults
from client.services.storage.stores import Stores
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from client.services.warming.cold_start import cold_start_then_warm
from client.services.warming.ttft_learning import TtftLearning
from client.services.warming.warming_policy import WarmingPolicy

EngineFactory = Callable[[], ManagedEngine]
SessionListener = Callable[[ChatSession], None]


class Tachy:
    def __init__(
        self,
        stores: Stores | None = None,
        *,
        engine_factory: EngineFactory | None = None,
        knowledge: KnowledgeBase | None = None,
        warm_models: bool = True,
    ) -> None:
        self.stores = stores or Stores()
        self.saved_servers = SavedServers(self.stores)
        self.backends = BackendPool()  # keys come from the keyring, off the loop
        self.backoff = Backoff()  # between tries at a chosen server that does not answer
        self.reaching: Reach | None = None  # the chosen server while it does not answer
        self._engine_factory = engine_factory  # None: the real engine
        self.engine_spec = ""  # its speculative decoding ("": none)
        self.engine: ManagedEngine | None = None  # made on first use, then kept
        # Called with each engine made, before it starts (the keep-alive's unload-after-idle).
        self.engine_hooks: list[Callable[[ManagedEngine], None]] = []
        self.session: ChatSession | None = None  # made when the first server is used
        self._session_listeners: list[SessionListener] = []
        self.events = EventBus()  # the root's typed events; its policies subscribe
        self.learning = TtftLearning(self.stores.settings)  # the TTFT predictors
        self.events.subscribe(AnswerFinished, self.learning.on_answer)
        self.hud = HudFeed(self.events)  # the HUD's turns and answers, whoever asked
        self.last_answer = LastAnswer(self.events)  # the doctor's report says it
        # Off in tests whose scripted server counts requests.
        self.warming = WarmingPolicy(self.stores.settings, self.learning) if warm_models else None
        if self.warming is not None:
            self.warming.subscribe(self.events)
            self.warming.warmer.add_listener(self._publish_server_state)
            self.warming.warmer.metrics_urls = self.saved_servers.metrics_url  # a router's
        self._knowledge = knowledge
        self._stage: KnowledgeStage | None = None
        self.cascade = SavedCascade(self.stores)
        self.chat_defaults = SavedChatDefaults(self.stores.settings)  # the Settings window's
        self.vision = ModelVision()  # which models can see, asked once each
        self.pools = SavedPools(self.stores)
        self.tools = ToolServers(self.stores.settings)  # MCP servers, started when first used
        self.turn_tools = TurnTools(self.tools, self.stores.settings)  # the window asks
        self._pool_backends: dict[ServerPool, PoolBackend] = {}  # their figures last
        self._before_cascade: tuple[Route, ...] | None = None  # the routes it replaced

    @property
    def knowledge(self) -> KnowledgeBase:
        """The user's documents (opened on first use: the window's Knowledge menu)."""
        if self._knowledge is None:
            self._knowledge = KnowledgeBase()
        return self._knowledge

    # --- the server in use ----------------------------------------------------------
    async def backend(self, choice: ServerChoice) -> Backend:
        """The server's backend, or a saved pool's (listed in the picker like a server)."""
        name = pool_name(choice)
        if name is None:
            return await self.backends.backend(choice)
        pool = self.pools.get(name)
        if pool is None:
            raise ValueError(f"No saved pool is called {name!r}.")
        return await self.pool_backend(pool)

    async def server_models(self, choice: ServerChoice) -> tuple[Backend, list[str]]:
        """The server's backend and its models' names, asked once."""
        backend = await self.backend(choice)
        names = [info.name for info in await backend.list_models()]
        await backend.server_kind()  # a router, known by its own endpoint, not what it forwards
        return backend, names

    async def reach(
        self, choice: ServerChoice, on_wait: Callable[[Waiting], None], missed: Exception
    ) -> tuple[Backend, list[str]]:
        """server_models(choice) once the server answers: asked again with backoff while
        it cannot be reached, every second while it loads its model (`missed`: the
        first try's error). Cancel the call to give up."""
        reach = self.reaching = Reach(self.backoff)

        def waiting(wait: Waiting) -> None:
            self.events.publish(ServerStateChanged(choice.name, "", wait.kind.value))
            on_wait(wait)

        try:
            answered = await reach.run(lambda: self.server_models(choice), waiting, missed)
            self.events.publish(ServerStateChanged(choice.name, "", "reachable"))
            return answered
        finally:
            if self.reaching is reach:
                self.reaching = None

    def try_now(self) -> None:
        """The server being reached is asked again at once."""
        if self.reaching is not None:
            self.reaching.try_now()

    def use(self, backend: Backend, model: str, choice: ServerChoice) -> ChatSession:
        """The chat goes to this server and model from the next request on (one still
        on its way keeps its own). The first call makes the session."""
        route = Route(backend, model, choice.name, choice.is_local)
        if self.session is not None:
            self.session.use_route(route)
            self._predict(self.session)
            return self.session
        history, metrics = self.stores.history, self.stores.metrics
        session = ChatSession(
            backend, model, history, metrics, choice.name, is_local=choice.is_local
        )
        self.session = session
        self.chat_defaults.apply(session)
        session.knowledge = self._stage
        session.vision = self.vision
        session.events = self.events
        session.tools = self.turn_tools
        if self.warming is not None:
            self.warming.attach(session)
        self._predict(session)
        for listener in self._session_listeners:
            listener(session)
        return session

    def use_model(self, model: str) -> None:
        if self.session is not None:
            self.session.use_model(model)
            self._predict(self.session)

    def _predict(self, session: ChatSession) -> None:
        """The session's plans predict their wait from its model's learned figures."""
        if self.warming is not None:
            self.warming.predict_for(session)
        else:
            session.ttft_estimate = self.learning.estimate(session.route)

    def _publish_server_state(self, status: ModelStatus) -> None:
        session = self.session
        if session is not None:
            state = status.state.value if status.state is not None else "unknown"
            self.events.publish(ServerStateChanged(session.server_name, session.model, state))

    def on_session(self, listener: SessionListener) -> None:
        """Call `listener` with the session when it is made (at once if it exists)."""
        self._session_listeners.append(listener)
        if self.session is not None:
            listener(self.session)

    def retarget_warming(self, reason: str) -> None:
        """The session's server or model changed: warming follows it."""
        session = self.session
        if self.warming is None or session is None:
            return
        engine = self.engine if session.is_local else None
        self.warming.retarget(session, engine, reason)

    # --- the cascade ----------------------------------------------------------------
    async def apply_cascade(self) -> bool:
        """Put the saved cascade on the session, or take it off, as saved; True when
        the session now goes through it. A server of it may be unreachable (raised)."""
        session, profile = self.session, self.cascade.load()
        if session is None:
            return False
        if not (profile.on and profile.complete):
            self._restore_routes()
            return False
        assert profile.fast is not None and profile.strong is not None
        fast, strong = await self._route(profile.fast), await self._route(profile.strong)
        if not self.cascade.load().on:
            return False  # turned off while its servers were reached
        self.use_cascade(fast, strong)
        return True

    def use_cascade(self, fast: Route, strong: Route) -> None:
        """The session's next requests go through these two routes (the ones it had
        come back when the cascade goes off)."""
        if self.session is None:
            return
        if self._before_cascade is None:
            self._before_cascade = self.session.routes
        self.session.use_routes(cascade_routes(fast, strong))

    def stop_cascade(self) -> bool:
        """The user picked one model or server: the cascade goes off at once, before
        that choice goes on the session; True when it was on."""
        profile = self.cascade.load()
        if not profile.on and self._before_cascade is None:
            return False
        self.cascade.save(replace(profile, on=False))
        self._restore_routes()
        return True

    def _restore_routes(self) -> None:
        if self.session is not None and self._before_cascade is not None:
            self.session.use_routes(self._before_cascade)
        self._before_cascade = None

    async def _route(self, part: CascadePart) -> Route:
        backend = await self.backend(part.choice)
        return Route(backend, part.model, part.name, part.is_local)

    # --- races ----------------------------------------------------------------------
    def race_setup(self) -> RaceSetup:
        """Turns the Race dialog's picks into routes with this app's parts
        (client/services/race/race_routes.py); close it after the race."""
        return RaceSetup(
            self.backend,
            self.local_engine,
            make_local_engine,
            self._cascade_routes,
            self._stage,
            _warm,
        )

    async def _cascade_routes(self) -> list[Route] | None:
        profile = self.cascade.load()
        if profile.fast is None or profile.strong is None:
            return None
        return cascade_routes(await self._route(profile.fast), await self._route(profile.strong))

    # --- pools (client/services/fleet) ---------------------------------------------
    async def pool_backend(self, pool: ServerPool) -> PoolBackend:
        """The pool as one backend, chosen like a server; made once per pool, so its
        servers' figures (the HUD's pool table, the hedge's waits) last the app's life."""
        known = self._pool_backends.get(pool)
        if known is None:
            backends = [await self.backend(member.choice) for member in pool.members]
            # Asked twice at once, the second caller finds the first's made meanwhile:
            # the loads reader (an HTTP client) is made only once nothing awaits after it.
            known = self._pool_backends.get(pool)
            if known is None:
                known = PoolBackend(pool, backends, ServerLoads(pool))
                self._pool_backends[pool] = known
        return known

    def pool_choices(self) -> list[ServerChoice]:
        """The saved pools, as the server picker lists them."""
        return [pool_choice(pool) for pool in self.pools.all()]

    def pool_in_use(self) -> PoolBackend | None:
        """The pool the chat goes to now, if it goes to one."""
        session = self.session
        backend = session.routes[0].backend if session is not None and session.routes else None
        return backend if isinstance(backend, PoolBackend) else None

    # --- the local engine -----------------------------------------------------------
    def local_engine(self) -> ManagedEngine:
        """The embedded engine, made once (not started: that takes seconds)."""
        if self.engine is None:
            factory = self._engine_factory
            self.engine = factory() if factory is not None else make_local_engine(self.engine_spec)
            for hook in self.engine_hooks:
                hook(self.engine)
        return self.engine

    def use_engine_spec(self, spec: str) -> bool:
        """The local engine's speculative decoding from its next start; True when the
        running engine should restart to use it now."""
        self.engine_spec = spec
        engine = self.engine
        if engine is None or self._engine_factory is not None:  # (a test's stand-in)
            return False
        with_spec(engine, spec)
        return engine.running

    def use_knowledge(self, stage: KnowledgeStage) -> None:
        """The retrieving stage: the session runs it for the conversations it says."""
        self._stage = stage
        if self.session is not None:
            self.session.knowledge = stage

    # --- quit -----------------------------------------------------------------------
    async def aclose(self) -> None:
        """Close every backend's HTTP client, stop warming and the local engine."""
        try:
            self.learning.save()
            if self.warming is not None:
                await self.warming.aclose()
            for pool in self._pool_backends.values():
                await pool.aclose()
            await self.backends.aclose()
            await self.tools.aclose()
        finally:
            if self.engine is not None:
                await self.engine.stop()


async def _warm(backend: Backend, model: str, engine: ManagedEngine | None) -> None:
    """A race's warm column: warmed as the app warms a model at start."""
    await cold_start_then_warm(None, backend, model, engine=engine)()
