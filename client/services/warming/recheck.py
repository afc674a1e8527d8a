"""Is the model the warmer calls warm still loaded? Asked as a user's request goes out.

A server restarted since the last answer (Ollama, the local engine after its idle
sleep) has an empty memory, while the warmer still says "warm · 29 min left": its
last reading. The request then waits for a load, which must be shown as loading, not
as "reading your question". So, on its own connection and never delaying the request,
the warmer asks again: Ollama's /api/ps, the local engine's sleep state.
"""

from __future__ import annotations

import logging

from client.backends.base import Backend
from client.backends.errors import TachyError
from client.services.servers.engine_idle import Engine
from client.services.servers.model_status import ServerPolicy, ollama_unload_time

log = logging.getLogger(__name__)


async def still_loaded(
    policy: ServerPolicy | None, backend: Backend | None, model: str, engine: Engine | None
) -> bool | None:
    """False when the server says the model is not in memory now; None when it cannot say."""
    try:
        if engine is not None and engine.running and engine.sleep_idle_s > 0:
            asleep = await engine.is_sleeping()
            return None if asleep is None else not asleep
        if policy is ServerPolicy.OLLAMA and backend is not None and not backend.closed:
            return await ollama_unload_time(backend, model) is not None
    except TachyError as error:  # no /api/ps (an old Ollama), or no answer: not known
        log.info("asking whether %s is still loaded failed: %s", model, error)
    return None
