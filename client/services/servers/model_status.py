"""What shows next to the model's name and how a server keeps its model loaded: the
model's status, the keep-alive setting, the per-server policy described for the ui,
and Ollama's durations and expiry times (used by client.services.warming.warming)."""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from client.backends.base import Backend
from client.core.prediction import ModelState

DEFAULT_KEEP_ALIVE = "30m"
REWARM_MARGIN_S = 60.0  # re-warm this long before the server would unload the model
ASSUMED_WARM_S = 300.0  # unknown servers: how long a warm-up is trusted (Ollama's default)
FOREVER_S = 7 * 24 * 3600.0  # an expiry further away than this is "kept loaded"


class ServerPolicy(StrEnum):
    OLLAMA = "ollama"  # load + /api/ps expiry; re-warm before it
    KEEPS_LOADED = "keeps_loaded"  # llama.cpp server, vLLM, local engine: warm once
    SLEEPS_WHEN_IDLE = "sleeps_when_idle"  # the local engine with unload-after-idle
    ONE_TOKEN = "one_token"  # other OpenAI-compatible servers: 1-token warm-ups


@dataclass(frozen=True, slots=True)
class WarmSettings:
    # Ollama keep_alive sent with warm-ups ("30m", seconds, -1 forever);
    # None = "let the server unload it": no keep_alive sent and no re-warming.
    keep_alive: str | int | None = DEFAULT_KEEP_ALIVE
    margin_s: float = REWARM_MARGIN_S
    assumed_warm_s: float = ASSUMED_WARM_S

    @property
    def keep_alive_s(self) -> float | None:
        return None if self.keep_alive is None else parse_duration(self.keep_alive)


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """What shows next to the model's name."""

    state: ModelState | None  # None: not known yet (no model, or the server did not say)
    unloads_at: float | None = None  # time.monotonic() when the server unloads it

    def seconds_left(self, now: float | None = None) -> float | None:
        if self.unloads_at is None:
            return None
        return max(self.unloads_at - (time.monotonic() if now is None else now), 0.0)

    def label(self, now: float | None = None) -> str:
        if self.state is None:
            return ""
        if self.state is ModelState.LOADING:
            return "loading…"
        if self.state is ModelState.COLD:
            return "cold"
        left = self.seconds_left(now)
        if left is None or left > FOREVER_S:  # kept loaded (keep_alive -1)
            return "warm"
        return f"warm · {_readable_span(left)} left"


def describe_policy(
    policy: ServerPolicy | None, settings: WarmSettings, server_name: str = ""
) -> str:
    """One sentence for the ui: what Tachy does to keep this server's model warm."""
    if policy is ServerPolicy.OLLAMA:
        if settings.keep_alive is None:
            return (
                "Ollama unloads idle models on its own schedule (5 minutes by default): "
                "Tachy loads the model when you start typing and lets the server unload it."
            )
        return (
            f"Ollama unloads idle models: Tachy loads the model with keep-alive "
            f"{settings.keep_alive} and re-warms it before it expires while you use the app."
        )
    if policy is ServerPolicy.KEEPS_LOADED:
        name = server_name or "This server"
        return (
            f"{name} keeps the model loaded while it runs: Tachy sends one 1-token "
            "request after it starts, then one when you open or type in a conversation "
            "it has not seen, so its prompt cache holds the conversation before you send."
        )
    if policy is ServerPolicy.SLEEPS_WHEN_IDLE:
        return (
            f"The local engine unloads the model after {settings.keep_alive} idle: Tachy "
            "loads it again when you start typing, with the conversation in its prompt cache."
        )
    if policy is ServerPolicy.ONE_TOKEN:
        return (
            "This server may unload idle models on its own schedule: Tachy sends a "
            "1-token request when you start typing and the model may have gone cold."
        )
    return "Tachy warms the model when you start typing."


def unload_time(expires_at: str, now: float | None = None) -> float | None:
    """Ollama's expires_at (ISO wall time) as a time.monotonic() deadline."""
    try:
        expires = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if expires.tzinfo is None:
        expires = expires.replace(tzinfo=UTC)
    left = (expires - datetime.now(UTC)).total_seconds()
    return (time.monotonic() if now is None else now) + left


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(value: str | int | float) -> float:
    """Ollama's keep_alive in seconds: "30m", "1h30m", 90, -1 (forever = inf)."""
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            sign = -1.0 if text.startswith("-") else 1.0
            parts = _PART.findall(text.lstrip("+-"))
            if not parts or "".join(n + u for n, u in parts) != text.lstrip("+-"):
                raise ValueError(f"not a duration: {value!r}") from None
            seconds = sign * sum(float(n) * _UNITS[u] for n, u in parts)
    return math.inf if seconds < 0 else seconds


def _readable_span(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.0f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


async def ollama_unload_time(backend: Backend, model: str) -> float | None:
    """time.monotonic() when Ollama will unload `model` (its /api/ps); None if not loaded."""
    wanted = _ollama_name(model)
    for info in await backend.running_models() or []:
        if _ollama_name(info.name) == wanted:
            moment = unload_time(info.expires_at) if info.expires_at else None
            return moment if moment is not None else time.monotonic() + FOREVER_S * 2
    return None


def _ollama_name(name: str) -> str:
    return name if ":" in name else f"{name}:latest"
