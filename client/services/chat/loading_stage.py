"""Whether a request is waiting for its model to load: the "loading" stage.

A server loads a model on the first request after it unloaded it (Ollama after its
keep_alive, the local engine after its idle sleep). The app knows this without asking
the server on the way to the first token: the warmer's model state (Ollama's /api/ps,
the local engine's sleep, a warm-up under way) is read when the request starts and
polled while it waits. The stage ends where the server says the prompt is being
read (llama.cpp's prompt_progress: the model is in memory), else at the first token;
afterwards Ollama's load_duration says how long the load took (the waterfall's
"server: model load" row) and marks a request cold that no state foretold.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from client.core.timeline import StageStamp
from client.services.chat.session_events import Stage
from client.store.stage_records import EXPECTED_MS as EXPECTED_MS
from client.store.stage_records import LoadingPart, part_counts

log = logging.getLogger(__name__)

ModelStateProvider = Callable[[], "str | None"]  # "cold" | "loading" | "warm" | None
LoadEstimate = Callable[[], "float | None"]  # the model's learned load time, ms
COLD_STATES = ("cold", "loading")
MODEL_STATE_POLL_S = 0.25  # how often the stage asks the warmer, before the first token
# Ollama reports a few ms of load_duration even for a loaded model; a real load takes
# seconds. Above this, the request counts as cold even if no warmer said so.
SERVER_LOAD_COLD_MS = 500.0


class LoadingWatch:
    """One request's view of its model's state, from start to first token."""

    def __init__(
        self, state: ModelStateProvider | None, load_estimate: LoadEstimate | None = None
    ) -> None:
        self._state = state
        self._load_estimate = load_estimate
        self.cold = False  # the model was cold or loading while the request waited
        self.prompt_started = False  # the server reported reading the prompt
        self.server_loading = False  # the server answers "Loading model" (a 503) for now

    @property
    def polls(self) -> bool:
        """True when the state can change while the request waits (a warmer tells it)."""
        return self._state is not None or self.server_loading

    def stage(self) -> Stage:
        """The stage the request is in now, as far as the app knows."""
        if self.prompt_started:
            return Stage.UNDERSTANDING  # loaded: the server is reading the prompt
        loading = self.server_loading or self._model_state() in COLD_STATES
        self.cold = self.cold or loading
        return Stage.LOADING if loading else Stage.UNDERSTANDING

    def expected_counts(self) -> dict[str, int | float | str] | None:
        """The loading stage's counts: how long a load of this model took before."""
        estimate = self._read(self._load_estimate)
        if not isinstance(estimate, int | float) or estimate <= 0:
            return None
        return part_counts(LoadingPart(float(estimate)))

    def expect(self, stage: StageStamp) -> None:
        """Note on a loading stage how long the model's loads took before."""
        expected = self.expected_counts()
        if expected is not None:
            stage.counts = {**(stage.counts or {}), **expected}

    @staticmethod
    def relabel(stage: StageStamp) -> int:
        """The warmer learned, while the request waited, that the model is loading (its
        /api/ps answer came after the request went out): the understanding stage under
        way was the load, since no server unloads a model under a request. Returns
        when it began."""
        stage.name = Stage.LOADING.value
        return stage.start_ns

    def server_loaded(self, load_ms: float) -> None:
        """The server's own load time (Ollama's load_duration), once the request ended."""
        self.cold = self.cold or load_ms >= SERVER_LOAD_COLD_MS

    def _model_state(self) -> str | None:
        state = self._read(self._state)
        return state if isinstance(state, str) else None

    @staticmethod
    def _read(provider: Callable[[], object] | None) -> object:
        if provider is None:
            return None
        try:
            return provider()
        except Exception:  # the warmer's bug must not stop the chat
            log.exception("reading the model's state failed")
            return None
