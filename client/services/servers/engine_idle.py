"""What the warmer needs of the local engine (client.backends.engine.local_engine.LocalEngine),
and how long it waits before asking whether an idle engine went to sleep.

The engine unloads its model after `sleep_idle_s` idle seconds (llama-server's
sleep_idle_seconds, set from the keep-alive menu: client.services.servers.servers.with_sleep_idle);
its /props then says is_sleeping, and the next request loads the model again (about
0.6 s for SmolLM2-135M). Reading /props does not wake it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from client.backends.engine.engine_settings import EngineSettings
from client.core.prediction import ModelState
from client.services.planning.planner import CachedPrompt
from client.services.servers.model_status import ModelStatus

# The engine's idle clock starts when its last task ends, a little before the warmer
# hears the answer end: asking this long after the deadline finds it asleep.
SLEEP_CHECK_DELAY_S = 0.5
# Still awake at the deadline (another client used it, or it is reading a prompt):
# asked again this often until it sleeps.
SLEEP_RECHECK_S = 1.0


class Engine(Protocol):
    @property
    def running(self) -> bool: ...

    @property
    def url(self) -> str: ...

    @property
    def sleep_idle_s(self) -> int:
        """Idle seconds before the running process unloads its model; -1 never."""
        ...

    async def start(self) -> None: ...

    async def is_sleeping(self) -> bool | None:
        """True when it unloaded its model; None when it does not say."""
        ...


class ManagedEngine(Engine, Protocol):
    """What the app needs of the embedded local engine
    (client.backends.engine.local_engine.LocalEngine; tests give stand-ins)."""

    settings: EngineSettings  # what it starts with next (speculation, unload-after-idle)

    @property
    def model(self) -> str: ...

    async def restart(self) -> None: ...

    async def stop(self) -> None: ...


class EngineSleepWatch:
    """The KeepAliveWarmer's part that follows an engine's unload-after-idle."""

    _engine: Engine | None
    _user_requests: int
    _task: asyncio.Task[None] | None
    _timers: list[asyncio.TimerHandle]
    _cached: CachedPrompt | None

    def _set_status(self, status: ModelStatus) -> None:
        raise NotImplementedError

    def _cancel_timers(self) -> None:
        raise NotImplementedError

    def _engine_sleeps(self) -> bool:
        return self._engine is not None and self._engine.running and self._engine.sleep_idle_s > 0

    def _watch_engine_sleep(self) -> None:
        """Warm until the engine's idle deadline; then ask it (_read_engine_sleep)."""
        assert self._engine is not None
        self._cancel_timers()
        span = float(self._engine.sleep_idle_s)
        self._set_status(ModelStatus(ModelState.WARM, time.monotonic() + span))
        loop = asyncio.get_running_loop()
        self._timers.append(loop.call_later(span + SLEEP_CHECK_DELAY_S, self._engine_idle_due))

    def _engine_idle_due(self) -> None:
        self._timers.clear()  # the one timer of an engine's watch: it fired
        if self._user_requests or (self._task is not None and not self._task.done()):
            return  # its end marks the model used again
        self._task = asyncio.get_running_loop().create_task(self._read_engine_sleep())

    async def _read_engine_sleep(self) -> None:
        asleep = await self._engine.is_sleeping() if self._engine is not None else None
        if asleep:  # the model and its context are freed: so is the prompt cache
            self._cached = None
            self._set_status(ModelStatus(ModelState.COLD))
        elif asleep is False:  # still awake (in use): ask again soon
            loop = asyncio.get_running_loop()
            self._timers.append(loop.call_later(SLEEP_RECHECK_S, self._engine_idle_due))
        else:  # it did not say: the state is not known
            self._set_status(ModelStatus(None))
