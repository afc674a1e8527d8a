"""KeepAliveWarmer: the model is loaded before the user's first message needs it.

    warmer = KeepAliveWarmer(backend, model, on_change=show_state)
    warmer.warm("app start")           # also on server/model change and typing
    policy.attach(session)             # (WarmingPolicy) its model_state and keep_alive
    warmer.user_request_started()      # before sending: cancels a warm-up in flight
    warmer.first_token_received()      # optional: ends LOADING at the first token
    warmer.user_request_finished(ok, prompt, tools=tools)  # the messages and tools it sent
    warmer.prefix_provider = next_prefix  # what the next request will start with

Per server:
- Ollama: an empty /api/chat with keep_alive loads the model (the reply says
  done_reason "load"), then GET /api/ps tells when it will be unloaded (expires_at).
  While the app is in use, it re-warms shortly before that; once the user has been
  idle longer than the keep-alive, it lets the model go.
- llama.cpp server, vLLM and the local engine keep their model loaded while they run:
  one 1-token request after start (the first request pays for first-time setup). The
  local engine is started first if it is not running; given an unload-after-idle (the
  keep-alive menu) it shows the time left, then asks if it sleeps
  (client.services.servers.engine_idle).
- Other OpenAI-compatible servers (LM Studio, proxies) may unload idle models on their
  own schedule: a 1-token request when the user starts typing and the model may have
  gone cold.

Prefix warming (OpenAI-compatible servers): a 1-token warm-up carries what the next
request will start with, the tools it offers, the system prompt and the conversation
so far as the budget will send it (from prefix_provider), then a short user message. Servers with a
prompt cache (llama.cpp server and so the local engine, vLLM with prefix caching)
reuse the longest common token prefix of consecutive requests, so the user's first
message then only prefills its own question (tens of ms instead of seconds). The
servers that keep models loaded get it again only when that prefix is not in their
cache (another conversation, new messages, another cut, other tools): the warmer
remembers what its warm-ups and the user's requests sent. Ollama's warm-up stays its load request.

Everything runs as asyncio tasks and timers: warm() never blocks, and a user request
always goes out at once (the warm-up is cancelled, which closes its connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from client.backends import backend_for
from client.backends.base import Backend
from client.backends.errors import TachyError
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Failed
from client.core.prediction import ModelState
from client.core.tools import ToolSpec
from client.services.planning.planner import CachedPrompt
from client.services.servers.engine_idle import Engine, EngineSleepWatch
from client.services.servers.model_status import (
    ModelStatus,
    ServerPolicy,
    WarmSettings,
    describe_policy,
)
from client.services.warming.expiry import OllamaExpiry
from client.services.warming.pool_warming import each_server, pool_unload_time
from client.services.warming.recheck import still_loaded
from client.services.warming.router_claims import RouterClaims

log = logging.getLogger(__name__)

# A model load can take minutes on a slow disk; the warm-up is cancelled the moment
# the user sends anything, so a long wait costs nothing.
WARM_TIMEOUTS = StreamTimeouts(first_byte_s=600.0, stall_s=600.0)
WARM_PROMPT = "Hi"

StatusListener = Callable[["ModelStatus"], None]
# The messages the next user request starts with (all before its question, fitted to the
# budget as it will be), or a request of them and its tools; None when not known.
PrefixProvider = Callable[[], "Sequence[ChatMessage] | ChatRequest | None"]


class KeepAliveWarmer(EngineSleepWatch, OllamaExpiry, RouterClaims):
    def __init__(
        self,
        backend: Backend | None,
        model: str | None,
        settings: WarmSettings | None = None,
        *,
        policy: ServerPolicy | None = None,
        engine: Engine | None = None,
        on_change: StatusListener | None = None,
    ) -> None:
        self.settings = settings or WarmSettings()
        self._listeners: list[StatusListener] = [on_change] if on_change else []
        self._status = ModelStatus(None)
        self._task: asyncio.Task[None] | None = None
        self._recheck: asyncio.Task[None] | None = None  # a warm model still loaded?
        self._timers: list[asyncio.TimerHandle] = []
        self._last_activity = time.monotonic()
        self._user_requests = 0
        self._closing: asyncio.Task[None] | None = None
        self._own_backend: Backend | None = None
        self.last_error: str | None = None
        self.warm_requests = 0  # warm-up requests sent (for tests and the HUD)
        self.prefix_provider: PrefixProvider | None = None
        # What the server's prompt cache starts with, as far as this client knows: the
        # prefix of the last warm-up or the prompt of the last user request (answered:
        # its answer follows it in the cache). None: not known.
        self._cached: CachedPrompt | None = None
        self._set_target(backend, model, policy, engine)

    # -- what the ui and the session read ------------------------------------
    @property
    def status(self) -> ModelStatus:
        return self._status

    @property
    def state(self) -> ModelState | None:
        return self._status.state

    @property
    def seconds_left(self) -> float | None:
        return self._status.seconds_left()

    def model_state(self) -> str | None:
        """The session's model_state_provider: "cold" | "loading" | "warm" | None."""
        return self._status.state.value if self._status.state else None

    @property
    def request_keep_alive(self) -> str | int | None:
        """keep_alive for the user's own Ollama requests, so they do not shorten it."""
        return self.settings.keep_alive

    @property
    def backend(self) -> Backend | None:
        """The backend warmed (for the local engine: the one at its current port)."""
        return self._backend

    @property
    def policy(self) -> ServerPolicy | None:
        if self._policy is ServerPolicy.KEEPS_LOADED and self._engine_sleeps():
            return ServerPolicy.SLEEPS_WHEN_IDLE
        return self._policy

    @property
    def server_name(self) -> str:
        """The name the policy sentence gives the server ("" when it has none)."""
        return self._server_name

    @property
    def policy_description(self) -> str:
        return describe_policy(self.policy, self.settings, self._server_name)

    def add_listener(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    # -- what the ui calls ------------------------------------------------------
    def warm(self, reason: str) -> asyncio.Task[None] | None:
        """Make sure the model is loaded (and, where the server caches prompts, the
        next request's prefix is in its cache), in the background (call it from the
        event loop: qasync's in the app). Returns at once: the only work done here is
        asking prefix_provider, for servers that keep models loaded. Returns the
        task, or None when nothing needs doing (already warm, a warm-up running, a
        user request in flight unless Ollama is only asked if it is loaded, no model)."""
        self.note_activity()
        if self._backend is None or not self._model:
            return None
        if self._user_requests and not self._only_asks_if_loaded():
            return None
        if self._task is not None and not self._task.done():
            return None
        if not self._needs_warming(reason):
            return None
        log.debug("warming %s (%s)", self._model, reason)
        self._task = asyncio.get_running_loop().create_task(self._run_warm(reason))
        return self._task

    async def warm_now(self, reason: str = "requested") -> ModelStatus:
        """Warm and wait for it (the CLI and `tachy bench`)."""
        task = self.warm(reason) or self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return self._status

    def note_activity(self) -> None:
        """The user is here (typing, reading, sending): keep re-warming."""
        self._last_activity = time.monotonic()

    def set_target(
        self,
        backend: Backend | None,
        model: str | None,
        *,
        policy: ServerPolicy | None = None,
        engine: Engine | None = None,
        reason: str = "model changed",
    ) -> asyncio.Task[None] | None:
        """Another server or model was chosen: forget the old one and warm the new."""
        self._cancel_warm()
        self._cancel_timers()
        if self._own_backend is not None:
            self._closing = asyncio.get_running_loop().create_task(self._own_backend.aclose())
        self._set_target(backend, model, policy, engine)
        self._set_status(ModelStatus(None))
        return self.warm(reason)

    def update_settings(self, settings: WarmSettings) -> None:
        self.settings = settings
        self._cancel_timers()
        self._schedule(self._status.unloads_at)

    def engine_restarted(self) -> asyncio.Task[None] | None:
        """The local engine was restarted with new settings: its cache is empty and
        its model cold until warmed again."""
        self._cancel_warm()
        self._cancel_timers()
        self._cached = None
        self._set_status(ModelStatus(ModelState.COLD))
        return self.warm("engine restarted")

    def user_request_started(self) -> bool:
        """Call just before a user request is sent. Cancels a warm-up in flight so
        the request goes out at once; returns True when the request will wait for a
        load (the stage LOADING): the model was cold or a warm-up was loading it. An
        Ollama warm-up asking /api/ps goes on: its answer tells the request's stage."""
        self.note_activity()
        self._user_requests += 1
        if not self._only_asks_if_loaded():
            self._cancel_warm()
        if self._status.state in (ModelState.COLD, ModelState.LOADING):
            self._set_status(ModelStatus(ModelState.LOADING))
            return True
        if self._status.state is ModelState.WARM:  # as last read: a restart empties it
            self._cancel_recheck()
            self._recheck = asyncio.get_running_loop().create_task(self._read_again())
        return False

    async def _read_again(self) -> None:
        """The server says a model shown warm is not loaded: this request loads it."""
        loaded = await still_loaded(self._policy, self._backend, self._model or "", self._engine)
        if loaded is False and self._user_requests and self._status.state is ModelState.WARM:
            self._cancel_timers()
            self._cached = None  # a new process, or a model woken: an empty cache
            self._set_status(ModelStatus(ModelState.LOADING))

    def _cancel_recheck(self) -> None:
        task, self._recheck = self._recheck, None
        if task is not None and not task.done():
            task.cancel()

    def first_token_received(self) -> None:
        """The user's request got its first token: whatever was loading is loaded
        (the session's stage poll then stops showing LOADING), and a model whose state
        was not known yet (chosen while the request was on its way) is warm."""
        self._cancel_recheck()  # its answer, if late, would be about before this token
        if self._status.state in (None, ModelState.COLD, ModelState.LOADING):
            self._set_status(ModelStatus(ModelState.WARM))

    def user_request_finished(
        self,
        ok: bool = True,
        prompt: Sequence[ChatMessage] | None = None,
        server_answered: bool = True,
        tools: Sequence[ToolSpec] = (),
    ) -> None:
        """The user's request ended. A success means the model is loaded now, and the
        server's prompt cache holds `prompt` (the messages sent after `tools`) and its answer.
        `server_answered` False: not a header or a byte came back, so what the server
        holds is not known any more (no "warm · 29 min left" from an older reading)."""
        self.note_activity()
        self._user_requests = max(self._user_requests - 1, 0)
        answered = ok and prompt is not None
        self._cached = self._cached_after(prompt or (), tools) if answered else None
        self._cancel_warm()  # an /api/ps check still running is moot now
        self._cancel_recheck()
        if not ok:
            if self._status.state is ModelState.LOADING or not server_answered:
                self._unknown()
            return
        self._mark_used()
        if self._policy is ServerPolicy.OLLAMA and not self._user_requests:
            # The request moved the server's unload time: read it again.
            self._task = asyncio.get_running_loop().create_task(self._refresh_ollama_expiry())

    async def aclose(self) -> None:
        self._cancel_recheck()
        self._cancel_timers()
        task = self._task
        self._cancel_warm()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._close_own_backend()

    async def _close_own_backend(self) -> None:
        own, self._own_backend = self._own_backend, None
        if own is not None:
            await own.aclose()

    # -- deciding ---------------------------------------------------------------
    def _set_target(self, backend: Backend | None, model: str | None,
                    policy: ServerPolicy | None, engine: Engine | None) -> None:  # fmt: skip
        self._backend = backend
        self._own_backend = None  # made here for an engine's new port
        self._model = model
        self._engine = engine
        self._cached = None  # another server's cache
        self._server_name = "The local engine" if engine is not None else ""
        if policy is None and backend is not None and backend.api == "ollama":
            policy = ServerPolicy.OLLAMA
        if policy is None and engine is not None:
            policy = ServerPolicy.KEEPS_LOADED
        self._policy = policy  # None: found out from /v1/models on the first warm-up

    def _needs_warming(self, reason: str) -> bool:
        if self._engine is not None and not self._engine.running:
            return True
        state = self._status.state
        if state is not ModelState.WARM:
            return True
        if self._policy is ServerPolicy.KEEPS_LOADED:
            prefix = self._next_prefix()
            return prefix is not None and not self.holds(prefix.messages, prefix.tools)
        if self._policy is not ServerPolicy.OLLAMA or self.settings.keep_alive is None:
            return False  # warm, and nothing to extend
        left = self._status.seconds_left()
        span = self.settings.keep_alive_s or 0.0
        # Typing while warm with time to spare needs nothing; the timer re-warms.
        return reason == "keep-alive" or (left is not None and left <= self._margin(span))

    def _next_prefix(self) -> ChatRequest | None:
        provider = self.prefix_provider
        if provider is None:
            return None
        try:
            prefix = provider()
        except Exception:  # reading the conversation failed: warm without it
            log.exception("reading the prefix to warm failed")
            return None
        if prefix is None or isinstance(prefix, ChatRequest):
            return prefix
        return ChatRequest("", [*prefix])

    def cached_prompt(self) -> CachedPrompt | None:
        """What the server's prompt cache is known to start with (a session's plan
        counts the rest as the prompt tokens the server must process); None: unknown."""
        return self._cached

    def holds(self, prefix: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()) -> bool:
        """True when the server's prompt cache is known to start with `tools`, then `prefix`."""
        return self._cached is not None and self._cached.holds(prefix, tools)

    # -- warming ----------------------------------------------------------------
    async def _run_warm(self, reason: str) -> None:
        try:
            await self._start_engine()
            if self._policy is None:
                self._policy = await self._detect_policy()
            if self._policy is ServerPolicy.OLLAMA:
                await self._warm_ollama()
            else:
                await self._warm_one_token()
            self.last_error = None
        except TachyError as error:
            log.info("warming %s failed (%s): %s", self._model, reason, error)
            self.last_error = str(error)
            if not self._user_requests:  # a request under way will tell for itself
                self._unknown()

    async def _start_engine(self) -> None:
        engine = self._engine
        if engine is None or engine.running:
            return
        self._cached = None  # a new process: an empty cache
        self._set_status(ModelStatus(ModelState.LOADING))
        await engine.start()
        # A LocalEngine without a fixed port gets a new one at every start.
        url = engine.url
        if self._backend is None or self._backend.base_url != url:
            await self._close_own_backend()
            self._own_backend = self._backend = backend_for(url, "openai")

    async def _warm_ollama(self) -> None:
        if self._status.state is not ModelState.WARM:
            state = ModelState.WARM if await self._is_loaded() else ModelState.LOADING
            # A user's request sent meanwhile loads it (its first token may tell first).
            if not self._user_requests or self._status.state is None:
                self._set_status(ModelStatus(state))
            if self._user_requests:
                return
        request = ChatRequest(self._model or "", [], keep_alive=self.settings.keep_alive)
        await self._send(request)
        await self._refresh_ollama_expiry()

    async def _warm_one_token(self) -> None:
        if self._status.state is not ModelState.WARM:
            self._set_status(ModelStatus(ModelState.LOADING))
        prefix = self._next_prefix() or ChatRequest("", [])
        # The short question after the prefix keeps the prefix rendered exactly as in
        # the user's request (templates treat the last message differently), and
        # also primes the template's own start when the prefix is empty.
        request = ChatRequest(
            self._model or "",
            [*prefix.messages, ChatMessage("user", WARM_PROMPT)],
            options=GenerationOptions(max_tokens=1),
            tools=prefix.tools,
        )
        await self._send(request)
        await self._claim_warm(prefix)  # behind a router, only where it is true

    async def _send(self, request: ChatRequest) -> None:
        assert self._backend is not None  # a pool's: every server of it (pool_warming.py)
        await each_server(self._backend, request, self._send_to)

    async def _send_to(self, backend: Backend, request: ChatRequest) -> None:
        self.warm_requests += 1
        async with backend.chat(request, WARM_TIMEOUTS) as stream:
            async for _event in stream:
                pass
        outcome = stream.outcome
        if isinstance(outcome, Failed):
            error = outcome.error
            raise error if isinstance(error, TachyError) else TachyError(str(error))

    async def _refresh_ollama_expiry(self) -> None:
        if self._backend is None or self._backend.closed:  # a reply ended as the app closed
            return
        try:
            unloads_at = await pool_unload_time(self._backend, self._model or "")
        except TachyError as error:  # an old Ollama without /api/ps: warm, time unknown
            log.info("reading /api/ps failed: %s", error)
            self._set_status(ModelStatus(ModelState.WARM))
            return
        self._cancel_timers()
        if unloads_at is None:  # the server says it is not loaded (keep_alive 0, evicted)
            self._set_status(ModelStatus(ModelState.COLD))
            return
        self._set_status(ModelStatus(ModelState.WARM, unloads_at))
        self._schedule(unloads_at)

    def _only_asks_if_loaded(self) -> bool:
        """An Ollama warm-up of a model of unknown state asks /api/ps first; during a
        user's request that is all it does (on its own connection, never delaying it)."""
        return self._policy is ServerPolicy.OLLAMA and self._status.state is None

    async def _is_loaded(self) -> bool:
        assert self._backend is not None
        try:
            return await pool_unload_time(self._backend, self._model or "") is not None
        except TachyError:
            return False  # no /api/ps: the load request still works

    async def _detect_policy(self) -> ServerPolicy:
        """llama.cpp server and vLLM say who they are (client.backends: server_kind)."""
        kind = await self._backend.server_kind() if self._backend is not None else None
        name = kind.keeps_models_loaded_as if kind is not None else ""
        if not name:
            return ServerPolicy.ONE_TOKEN
        self._server_name = name
        return ServerPolicy.KEEPS_LOADED

    # -- state and timers ---------------------------------------------------------
    def _mark_used(self) -> None:
        if self._policy is ServerPolicy.ONE_TOKEN:
            # Unknown schedule: trust the warm-up for a while, then say "not known".
            self._cancel_timers()
            self._set_status(ModelStatus(ModelState.WARM))
            loop = asyncio.get_running_loop()
            self._timers.append(loop.call_later(self.settings.assumed_warm_s, self._forget))
        elif self._engine is not None and self._engine_sleeps():
            self._watch_engine_sleep()
        else:
            self._set_status(replace(self._status, state=ModelState.WARM))

    def _unknown(self) -> None:
        """The server did not answer: what it holds is not known (not warm, no countdown)."""
        self._cancel_timers()
        self._set_status(ModelStatus(None))

    def _set_status(self, status: ModelStatus) -> None:
        if status == self._status:
            return
        self._status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:  # a listener's bug must not stop warming
                log.exception("model state listener failed")

    def _cancel_warm(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()  # ChatStream closes the response: the connection drops

    def _cancel_timers(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
