"""The KeepAliveWarmer's part that follows Ollama's unload time: the model is said cold
when Ollama unloads it, and warmed again a margin before that while the user is active
(client/services/warming/warming.py has this part)."""

from __future__ import annotations

import asyncio
import logging
import time

from client.core.prediction import ModelState
from client.services.servers.model_status import (
    FOREVER_S,
    ModelStatus,
    ServerPolicy,
    WarmSettings,
)

log = logging.getLogger("client.services.warming.warming")


class OllamaExpiry:
    settings: WarmSettings
    _policy: ServerPolicy | None
    _model: str | None
    _status: ModelStatus
    _task: asyncio.Task[None] | None
    _timers: list[asyncio.TimerHandle]
    _last_activity: float
    _user_requests: int

    def _set_status(self, status: ModelStatus) -> None:
        raise NotImplementedError

    async def _run_warm(self, reason: str) -> None:
        raise NotImplementedError

    def _schedule(self, unloads_at: float | None) -> None:
        if unloads_at is None or self._policy is not ServerPolicy.OLLAMA:
            return
        span = unloads_at - time.monotonic()
        if span > FOREVER_S:
            return
        loop = asyncio.get_running_loop()
        self._timers.append(loop.call_later(max(span, 0.0), self._unloaded))
        if self.settings.keep_alive is not None:
            rewarm_in = max(span - self._margin(span), 0.0)
            self._timers.append(loop.call_later(rewarm_in, self._rewarm_due))

    def _margin(self, span: float) -> float:
        return min(self.settings.margin_s, span * 0.2)

    def _rewarm_due(self) -> None:
        idle = time.monotonic() - self._last_activity
        keep_alive_s = self.settings.keep_alive_s
        if keep_alive_s is not None and idle > keep_alive_s:
            log.debug("user idle for %.0f s: letting %s unload", idle, self._model)
            return
        if self._user_requests:
            return  # the user's own request keeps it loaded
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run_warm("keep-alive"))

    def _unloaded(self) -> None:
        if self._status.state is ModelState.WARM and not self._user_requests:
            self._set_status(ModelStatus(ModelState.COLD))

    def _forget(self) -> None:
        if self._status.state is ModelState.WARM and not self._user_requests:
            self._set_status(ModelStatus(None))
