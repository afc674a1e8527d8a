"""What a server kind is: one value per kind, made in its folder
(client/backends/kinds/<kind>/__init__.py) and listed once in registry.py.

Code outside client/backends/kinds never tests a kind's name: it asks the kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from client.backends.figures.snapshot import FiguresReaderMaker, ServerSnapshot
from client.core.conversation import ChatRequest
from client.core.server_timings import ServerTimings

BodyMaker = Callable[[ChatRequest], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class KindProbe:
    """An endpoint of a kind's own, asked before anything it may forward is believed (a
    router answers /v1/models, /version and /metrics with one worker's answer)."""

    path: str
    # The JSON answer -> the server's name ("vLLM router · 2 workers"); None: not this kind.
    name_of: Callable[[object], str | None]


MetricsParser = Callable[[str, str | None, dict[str, float] | None], ServerSnapshot]


@dataclass(frozen=True, slots=True)
class ServerKind:
    name: str  # stable: stored with timings and snapshots ("vllm")
    display_name: str  # as users call it ("vLLM"): picker, `tachy models`, the HUD
    api: str  # the wire protocol it speaks: "ollama" or "openai" (the user's API setting)
    body: BodyMaker  # the request body it gets for a ChatRequest
    # Its typed per-request timings; on an OpenAI-compatible stream, the chunk key that
    # carries them ("timings", "metrics").
    timings: type[ServerTimings] | None = None
    stream_timings_key: str | None = None
    # How it shows itself: /v1/models' owned_by, the `Server` header, its /metrics prefix.
    probe: KindProbe | None = None
    owned_by: tuple[str, ...] = ()
    server_header: str | None = None
    metrics_prefix: str | None = None
    # The server view: the path read first each poll, and the reader of that answer;
    # its /metrics text read once: (text, model, counters before) -> snapshot.
    figures_path: str = "/metrics"
    figures_reader: FiguresReaderMaker | None = None
    metrics_parser: MetricsParser | None = None
    lists_loaded_models: bool = False  # its figures are the models loaded, not counts
    # The ServerSnapshot figures it never fills (the server view hides their rows).
    figures_not_given: frozenset[str] = frozenset()
    # Continuing a final assistant message: by itself, or when asked by a flag.
    continues_trailing_assistant: bool = False
    continues_final_message_flag: bool = False
    # Who keeps a model loaded once warm: the name the warming sentence says
    # ("" = its schedule is not known: warm with one token, trust it a while).
    keeps_models_loaded_as: str = ""
    # A router: which of its workers answered, it does not say (no header of its own, the
    # same system_fingerprint from every worker), so an answer is said to come "via router".
    hides_worker: bool = False

    def __str__(self) -> str:
        return self.display_name

    @property
    def server_name(self) -> str:
        """What the server is called when it says no more: "vLLM server"."""
        return f"{self.display_name} server"
