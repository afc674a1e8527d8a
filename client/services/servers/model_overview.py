"""What the model picker shows of every server: its models, which of them are loaded
(and for how long), and the last measured time to first token of each. Qt-free; the
window reaches the metrics store and the backends only through here."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from client.core.prediction import ModelState
from client.services.servers.model_status import FOREVER_S, ModelStatus, unload_time

if TYPE_CHECKING:
    from client.backends.base import Backend
    from client.services.storage.stores import Stores

LIST_TIMEOUT_S = 3.0  # a saved server that does not answer in this long is "not reachable"


async def model_names(backend: Backend, timeout_s: float = LIST_TIMEOUT_S) -> list[str]:
    """The server's models, as it names them. Raises what the backend raises, or
    TimeoutError."""
    async with asyncio.timeout(timeout_s):
        return [info.name for info in await backend.list_models()]


async def loaded_models(backend: Backend, names: list[str]) -> dict[str, ModelStatus] | None:
    """Each listed model's state where the server says which are loaded (Ollama's
    /api/ps: warm with its unload time, or cold); empty where it does not say; None
    when it did not answer (what was known stays shown)."""
    try:
        async with asyncio.timeout(LIST_TIMEOUT_S):
            running = await backend.running_models()
    except Exception:  # unknown is shown as nothing, never as an error
        return None
    if running is None:
        return {}
    now = time.monotonic()
    loaded: dict[str, ModelStatus] = {}
    for info in running:
        moment = unload_time(info.expires_at, now) if info.expires_at else None
        loaded[ollama_name(info.name)] = ModelStatus(
            ModelState.WARM, moment if moment is not None else now + FOREVER_S * 2
        )
    cold = ModelStatus(ModelState.COLD)
    return {name: loaded.get(ollama_name(name), cold) for name in names}


def last_ttfts(stores: Stores | None) -> dict[tuple[str, str], float]:
    """The last measured ttft_ms of each (server name, model) in the recent history:
    one read of a few ms, at start; the window then adds each answer's own figure."""
    metrics = stores.metrics if stores is not None else None
    return metrics.last_ttfts() if metrics is not None else {}


def ollama_name(name: str) -> str:
    """Ollama's "llama3" is "llama3:latest"."""
    return name if ":" in name else f"{name}:latest"
