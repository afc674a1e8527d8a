"""The lab's shared state: current scenario, loaded models, metrics and counters."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

import aiohttp

from client.lab.running.live import Live
from client.lab.running.metrics import LabMetrics
from client.lab.scenarios.models import ModelState, parse_keep_alive
from client.lab.scenarios.scenario import Scenario
from client.lab.scenarios.steps import Positions, Step, step_at
from client.lab.timing.scheduler import Scheduler

# When the request being handled arrived (loop time); set by the server's middleware,
# read in the same task by the handler.
ARRIVAL: ContextVar[float | None] = ContextVar("tachy_lab_arrival", default=None)


def canonical(model: str) -> str:
    """Ollama's rule: a name without a tag means ':latest'."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


class Pausable(Protocol):
    def pause(self, seconds: float) -> None: ...


@dataclass(slots=True)
class LabStats:
    """Counters tests and presenters can read: what happened to each request."""

    requests: int = 0
    completed: int = 0
    disconnected: int = 0  # the client went away before the reply ended
    # time.perf_counter_ns() when each request's handler saw its client leave (any path);
    # comparable with a client's stamps only when the lab runs in the client's process
    left_at_ns: list[int] = field(default_factory=list)
    held: int = 0  # requests being held right now by the never_answer fault
    faults: Counter[str] = field(default_factory=Counter)


class LabState:
    def __init__(self, scenario: Scenario, upstream: str | None = None) -> None:
        self.scenario = scenario
        self.upstream = upstream
        self.session: aiohttp.ClientSession | None = None
        self.models = ModelState()
        self.pulled: dict[str, int] = {}  # name -> bytes, pulled through /api/pull
        self.removed: set[str] = set()  # deleted through /api/delete
        self.metrics = LabMetrics()
        self.stats = LabStats()
        self.scheduler = Scheduler(scenario.capacity, scenario.batching)
        self.decoding: set[Pausable] = set()  # streams being played right now
        self._last_prompt: tuple[str, ...] = ()
        self.started_wall = int(time.time())
        self._request_count = 0
        self._metrics_rng = random.Random(scenario.seed)
        self.positions = Positions()
        self.live = Live()  # the presenter's TTFT/TPOT/fault (client/lab/running/live.py)
        self._start_pending = False  # starts_loading: the load begins at the next request
        self._starting_until: float | None = None  # loop time its models are all loaded
        self.apply_model_state()

    def set_scenario(self, scenario: Scenario) -> None:
        """Switch live: new requests use it; the model starts loaded or cold as it says."""
        self.scenario = scenario
        self._request_count = 0
        self._last_prompt = ()
        self.positions.clear()
        self.live = Live()
        self.scheduler.configure(scenario.capacity, scenario.batching)
        self.apply_model_state()

    def apply_model_state(self) -> None:
        self._own = {canonical(s.model): s for s in self.scenario.served()}
        self._default_keep_alive = parse_keep_alive(self.scenario.keep_alive)
        self.models.clear()
        self._starting_until = None
        # A proxy lists what its clients actually used, under the upstream's names.
        if self.upstream is not None:
            return
        self._start_pending = self.scenario.starts_loading
        if self._start_pending:
            return
        for name, own in self._own.items():
            if own.start_loaded:
                self.models.load_now(name, _now(), parse_keep_alive(own.keep_alive))

    def arrived(self, now: float) -> None:
        """A request arrived: a starting server's load begins with the first one."""
        if not self._start_pending:
            return
        self._start_pending = False
        until = now
        for name, own in self._own.items():
            load_s = own.load_ms / 1000.0
            self.models.start_loading(name, now, load_s, parse_keep_alive(own.keep_alive))
            until = max(until, now + load_s)
        self._starting_until = until

    def starting(self, now: float) -> bool:
        """The server is still loading the models it starts with (starts_loading)."""
        return self._starting_until is not None and now < self._starting_until

    def scenario_for(self, model: str) -> Scenario:
        """The dials of this model ([models.NAME]), else the scenario's own."""
        return self._own.get(canonical(model), self.scenario)

    def own_models(self) -> list[str]:
        return [s.model for s in self.scenario.served()]

    def rng_for(self, request_seed: int | None) -> random.Random:
        """Per-request randomness: the same seed (or the same request order) replays."""
        self._request_count += 1
        if request_seed is not None:
            return random.Random(f"{self.scenario.seed}:seed:{request_seed}")
        return random.Random(f"{self.scenario.seed}:#{self._request_count}")

    def next_step(self, scenario: Scenario, model: str, conversation: str | None) -> Step | None:
        """This request's step of the scenario's sequence; None when it has none."""
        if not scenario.steps:
            return None
        index = self.positions.next_index(canonical(model), conversation)
        return step_at(scenario.steps, scenario.after, index)

    def knows(self, model: str) -> bool:
        name = canonical(model)
        if name in self.removed:
            return False
        own = name in self._own or name in self.pulled
        return self.upstream is not None or own

    def cached_prefix(self, prompt: tuple[str, ...]) -> int:
        """Prompt tokens a llama.cpp slot reuses: the common prefix with the last prompt.

        At least one token is always evaluated, as llama.cpp does for an exact repeat.
        """
        previous, self._last_prompt = self._last_prompt, prompt
        common = 0
        for mine, theirs in zip(prompt, previous, strict=False):
            if mine != theirs:
                break
            common += 1
        return min(common, max(0, len(prompt) - 1))

    def pause_decoding(self, seconds: float) -> None:
        """A prefill without chunking holds up every stream being decoded."""
        for stream in list(self.decoding):
            stream.pause(seconds)

    def default_keep_alive(self, model: str | None = None) -> float:
        if model is None or canonical(model) not in self._own:
            return self._default_keep_alive
        return parse_keep_alive(self._own[canonical(model)].keep_alive)


def _now() -> float:
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        import time

        return time.monotonic()  # the same clock loop.time() uses
