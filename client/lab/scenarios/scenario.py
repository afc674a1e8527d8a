"""Scenario dials: how the simulated server behaves, read from TOML/JSON or a preset name.

A scenario file is flat TOML (or the same keys as JSON). ``base`` starts from a preset
and overrides only what the file says::

    base = "typing"
    seed = 7
    tpot_ms = 25
    corpus = "chinese"
    [ttft]
    kind = "lognormal"
    p50_ms = 600
    p95_ms = 800
    [fault]
    kind = "stall"
    after_tokens = 10
    seconds = 5
    [random_faults]
    rate = 0.2
    pool = [{ kind = "reset", after_tokens = 5 }, { kind = "http_error", status = 500 }]
"""

from __future__ import annotations

import json
import math
import random
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from client.lab.scenarios.models import KeepAliveError, parse_keep_alive
from client.lab.scenarios.recording import Recording, RecordingError, parse_recording

# What each fault does is described in client/lab/README.md (the fault table).
FAULT_KINDS = (
    "http_error",  # an HTTP 4xx/5xx before the stream (status, message)
    "queue_full",  # 503 "server busy" before the stream
    "unknown_model",  # 404 model not found, whatever the model asked for
    "html_error",  # text/html 502 page from a "proxy"
    "slow_first_byte",  # no byte at all (not even headers) for `seconds`
    "never_answer",  # accept the request and hold it until the client leaves
    "error_mid_stream",  # an error line/event after `after_tokens`, then the end
    "reset",  # TCP reset after `after_tokens`
    "stall",  # silence for `seconds` after `after_tokens`, then carry on
    "malformed_json",  # a broken JSON line after `after_tokens`, then carry on
    "oversize_line",  # one valid line of `size_bytes` after `after_tokens`
    "utf8_cut",  # the stream ends inside a multi-byte UTF-8 character
)
BEFORE_STREAM = frozenset(
    {"http_error", "queue_full", "unknown_model", "html_error", "slow_first_byte", "never_answer"}
)
DEFAULT_MODEL = "tachy-lab:latest"
AFTER_LAST = ("ok", "loop", "hold")  # what a sequence does after its last step


class ScenarioError(ValueError):
    """A scenario file or dict that cannot be used; the message says which key."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """A latency in milliseconds: fixed, or normal/lognormal fitted to P50 and P95."""

    kind: str = "fixed"
    p50_ms: float = 0.0
    p95_ms: float | None = None
    min_ms: float = 0.0
    max_ms: float | None = None

    def sample_ms(self, rng: random.Random) -> float:
        if self.kind == "fixed" or self.p95_ms is None or self.p95_ms <= self.p50_ms:
            value = self.p50_ms
        elif self.kind == "normal":
            value = rng.gauss(self.p50_ms, (self.p95_ms - self.p50_ms) / 1.6449)
        else:  # lognormal: median p50, and p95 sets the spread
            sigma = math.log(self.p95_ms / self.p50_ms) / 1.6449
            value = rng.lognormvariate(math.log(self.p50_ms), sigma)
        value = max(self.min_ms, value)
        return value if self.max_ms is None else min(self.max_ms, value)


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str
    after_tokens: int = 0
    status: int = 500
    seconds: float = 5.0
    message: str = ""
    size_bytes: int = 9 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a sequence (lab/scenarios/steps.py): a fault or ok, maybe its own timing."""

    fault: Fault | None = None  # None: the step is "ok"
    ttft: Distribution | None = None  # None: the scenario's
    tpot_ms: float | None = None
    repeat: int = 1

    @property
    def kind(self) -> str:
        return "ok" if self.fault is None else self.fault.kind


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str = "custom"
    model: str = DEFAULT_MODEL
    family: str = "llama"
    context_length: int = 8192
    start_loaded: bool = True
    load_ms: float = 0.0
    # As llama.cpp's server does when it starts: its port is open but its models load
    # (load_ms), from the first request the lab gets, so a client that comes late still
    # finds it loading; meanwhile the OpenAI side answers 503 "Loading model".
    starts_loading: bool = False
    keep_alive: str | float = "5m"
    ttft: Distribution = field(default_factory=lambda: Distribution("fixed", 180.0))
    tpot_ms: float = 20.0
    jitter_ms: float = 0.0
    tokens_per_chunk: int = 1
    # > 0: tokens are made at tpot_ms but held and sent together every burst_ms (the
    # first at once), as a server batching or a buffering proxy does: the same mean
    # rate, in bursts.
    burst_ms: float = 0.0
    reasoning_tokens: int = 0
    reasoning_always: bool = False
    output_tokens: int = 64
    output_tokens_min: int | None = None  # set: each reply's length is drawn in [min, max]
    corpus: str = "english"
    text_file: str | None = None
    seed: int = 0
    fault: Fault | None = None
    fault_rate: float = 0.0
    random_faults: tuple[Fault, ...] = ()
    spec_acceptance: float | None = None
    # Which OpenAI-compatible server /v1 and /metrics look like: "vllm" or "llamacpp"
    # (llama.cpp adds timings, prompt_progress with return_progress, /slots, /props).
    server: str = "vllm"
    # vLLM's --enable-per-request-metrics: its own timings in the usage chunk (`metrics`).
    per_request_metrics: bool = False
    # vLLM (and llama.cpp) count the end-of-sequence token of a reply that ends by stop:
    # one more token, one TPOT after the last text; vLLM sends it as content "".
    end_token_counted: bool = False
    # The system prompt the model's chat template puts first when a conversation has
    # none, in tokens (client/lab/text/chat_template.py): SmolLM2's 16; 0 for a model
    # without one. It counts in every prompt's tokens, as the real servers count it.
    system_prompt_tokens: int = 16
    n_batch: int = 2048  # llama.cpp's -b: one prompt_progress chunk per batch
    prefill_tokens_per_s: float = 0.0  # > 0: each uncached prompt token adds to TTFT
    # How many requests the emulated server runs at once (0: no limit). Past it,
    # requests wait in a queue; "continuous" admits one as soon as another ends,
    # "static" only when the whole running batch has ended (no continuous batching).
    capacity: int = 0
    batching: str = "continuous"
    # Without chunked prefill, a new request's prefill pauses the decoding of every
    # running request for as long as it takes; with it, decoding goes on.
    chunked_prefill: bool = True
    # A sequence (client/lab/scenarios/steps.py): played in order of arrival, before the fault
    # dials above; `after` says what follows the last step: "ok", "loop" or "hold".
    steps: tuple[Step, ...] = ()
    after: str = "ok"
    # A model that can see (client/lab/endpoints/vision.py): it accepts images on both APIs, each
    # `tokens_per_tile` prompt tokens per `tile_px` tile, encoded at
    # `encode_ms_per_megapixel` before the first token; `image_size` is the encoder's
    # input side it reports (Ollama /api/show). A text model refuses images.
    vision: bool = False
    image_size: int = 1024
    tile_px: int = 512
    tokens_per_tile: int = 256
    encode_ms_per_megapixel: float = 150.0
    # A request with `tools` (client/lab/tools/): "default", "done_line" (Ollama's calls
    # on its done:true line) or "interleaved" (OpenAI's parallel calls' deltas interleave).
    tool_calls_style: str = "default"
    # [models.NAME] tables: the lab serves these models (instead of `model`), each with
    # its own dials; server-wide dials (server, capacity, batching) stay the top level's.
    models: tuple[Scenario, ...] = ()
    # A recorded session (`tachy lab --record`): its replies are played byte for byte
    # with their timing, in order of arrival; `after` says what follows the last one.
    recording: Recording | None = None

    def served(self) -> tuple[Scenario, ...]:
        """One scenario per model the lab serves."""
        return self.models or (self,)

    def pick_fault(self, rng: random.Random) -> Fault | None:
        """The fault for one request: the fixed one, else maybe one from the pool."""
        if self.fault is not None:
            return self.fault
        if self.random_faults and rng.random() < self.fault_rate:
            return rng.choice(self.random_faults)
        return None


def _tier(
    name: str, p50: float, p95: float, low: float, high: float | None, tpot: float
) -> Scenario:
    ttft = Distribution("normal", p50, p95, min_ms=low, max_ms=high)
    return Scenario(name=name, ttft=ttft, tpot_ms=tpot, jitter_ms=tpot / 10)


_FLAKY_POOL = (
    Fault("error_mid_stream", after_tokens=8, message="llama runner process has terminated"),
    Fault("reset", after_tokens=12),
    Fault("stall", after_tokens=6, seconds=4.0),
    Fault("http_error", status=500, message="internal server error"),
    Fault("malformed_json", after_tokens=5),
)

_steady = Scenario(ttft=Distribution("fixed", 250.0), tpot_ms=1000.0 / 6, output_tokens=73)

PRESETS: dict[str, Scenario] = {
    # The four tiers start loaded so every reply, the first included, lands in its tier.
    "instant": _tier("instant", 30, 45, 5, 95, 12),
    "fast": _tier("fast", 180, 230, 110, 290, 18),
    "typing": _tier("typing", 600, 750, 320, 980, 25),
    "slow": _tier("slow", 2500, 3000, 1100, 6000, 40),
    "cold-start": replace(
        _tier("cold-start", 180, 230, 110, 290, 20), start_loaded=False, load_ms=3000
    ),
    "thinking": replace(
        _tier("thinking", 250, 320, 110, 600, 15), reasoning_tokens=48, reasoning_always=True
    ),
    "flaky": replace(
        _tier("flaky", 180, 230, 110, 290, 20), fault_rate=0.35, random_faults=_FLAKY_POOL
    ),
    "stall": replace(_tier("stall", 180, 230, 110, 290, 20), fault=Fault("stall", 10, seconds=8)),
    "reset": replace(_tier("reset", 180, 230, 110, 290, 20), fault=Fault("reset", 12)),
    # llama.cpp server reading a long prompt: prompt_progress every 64 tokens.
    "prefill": replace(
        _tier("prefill", 120, 150, 60, 290, 20),
        server="llamacpp",
        n_batch=64,
        prefill_tokens_per_s=400.0,
    ),
    # The same 8-request server two ways (tachy bench --sweep shows the difference):
    # vLLM-like continuous batching with chunked prefill, and a static batch whose
    # prefills stall every running stream.
    # Replies of 8 to 120 tokens, so a static batch lasts as long as its longest reply.
    "continuous": replace(
        _tier("continuous", 120, 150, 60, 290, 20),
        capacity=8,
        prefill_tokens_per_s=4000.0,
        output_tokens=120,
        output_tokens_min=8,
    ),
    "static": replace(
        _tier("static", 120, 150, 60, 290, 20),
        capacity=8,
        prefill_tokens_per_s=4000.0,
        output_tokens=120,
        output_tokens_min=8,
        batching="static",
        chunked_prefill=False,
    ),
    # The same answer at the same mean rate (6 tokens a second, a reader's pace) and
    # the same TTFT, steady or held back in bursts of 18 every 3 s: QoE tells them apart.
    "steady": replace(_steady, name="steady"),
    "bursty": replace(_steady, name="bursty", burst_ms=3000.0),
    "overloaded": replace(
        _tier("overloaded", 180, 230, 110, 290, 20),
        fault_rate=0.8,
        random_faults=(Fault("queue_full", status=503), Fault("http_error", status=429)),
    ),
}


def preset(name: str) -> Scenario:
    try:
        return PRESETS[name]
    except KeyError:
        raise ScenarioError(f"no preset {name!r}; presets: {', '.join(PRESETS)}") from None


def load_scenario(name_or_path: str | Path) -> Scenario:
    """A preset name, or a .toml / .json file."""
    if isinstance(name_or_path, str) and name_or_path in PRESETS:
        return PRESETS[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise ScenarioError(
            f"{name_or_path!r} is neither a preset ({', '.join(PRESETS)}) nor a file"
        )
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path.name}: {exc}") from exc
    scenario = scenario_from_dict(data)
    if scenario.text_file and not Path(scenario.text_file).is_absolute():
        scenario = replace(scenario, text_file=str(path.parent / scenario.text_file))
    if "name" not in data:
        scenario = replace(scenario, name=path.stem)
    return scenario


def scenario_from_dict(data: dict[str, Any]) -> Scenario:
    data = dict(data)
    # [flow]: what a tester does in the window (`tachy lab check`); the lab serves without it.
    data.pop("flow", None)
    tables = data.pop("models", None)
    base = preset(data.pop("base")) if "base" in data else Scenario()
    scenario = _with_dials(base, data)
    if tables is None:
        return scenario
    if not isinstance(tables, dict) or not tables:
        raise ScenarioError("models must be tables: [models.NAME] with that model's dials")
    return replace(scenario, models=tuple(_model(scenario, n, v) for n, v in tables.items()))


def _model(top: Scenario, name: str, value: Any) -> Scenario:
    """[models.NAME]: the top level's dials (or its own base preset's), then its own."""
    if not isinstance(value, dict):
        raise ScenarioError(f"models.{name} must be a table of dials")
    data = dict(value)
    if "models" in data:
        raise ScenarioError(f"models.{name}: a model has no models of its own")
    base = preset(data.pop("base")) if "base" in data else top
    try:
        return _with_dials(replace(base, name=name, model=name, models=()), data)
    except ScenarioError as exc:
        raise ScenarioError(f"models.{name}: {exc}") from None


def _with_dials(base: Scenario, data: dict[str, Any]) -> Scenario:
    changes: dict[str, Any] = {}
    known = {f.name for f in fields(Scenario)} - {"models"}
    for key, value in data.items():
        if key == "ttft":
            changes["ttft"] = _distribution(value)
        elif key == "fault":
            changes["fault"] = parse_fault(value)
        elif key == "random_faults":
            changes.update(_random_faults(value))
        elif key == "steps":
            changes["steps"] = _steps(value)
        elif key == "recording":
            changes["recording"] = _recording(value)
        elif key == "max_tokens":  # the same dial under the API's name
            changes["output_tokens"] = value
        elif key in known:
            changes[key] = value
        else:
            raise ScenarioError(f"unknown scenario key {key!r}")
    scenario = replace(base, **changes)
    _check(scenario)
    return scenario


def _distribution(value: Any) -> Distribution:
    if isinstance(value, int | float):
        return Distribution("fixed", float(value))
    if not isinstance(value, dict):
        raise ScenarioError("ttft must be a number (ms) or a table")
    try:
        dist = Distribution(**value)
    except TypeError as exc:
        raise ScenarioError(f"ttft: {exc}") from exc
    if dist.kind not in ("fixed", "normal", "lognormal"):
        raise ScenarioError(f"ttft.kind must be fixed, normal or lognormal, not {dist.kind!r}")
    if dist.kind == "lognormal" and dist.p50_ms <= 0:
        raise ScenarioError("ttft.p50_ms must be > 0 for a lognormal")
    return dist


def parse_fault(value: Any) -> Fault:
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, dict):
        raise ScenarioError("a fault is a table with at least 'kind'")
    try:
        fault = Fault(**value)
    except TypeError as exc:
        raise ScenarioError(f"fault: {exc}") from exc
    if fault.kind not in FAULT_KINDS:
        raise ScenarioError(f"unknown fault kind {fault.kind!r}; kinds: {', '.join(FAULT_KINDS)}")
    return fault


def _steps(value: Any) -> tuple[Step, ...]:
    if not isinstance(value, list) or not value:
        raise ScenarioError("steps must be a non-empty list of tables")
    return tuple(_step(number, item) for number, item in enumerate(value, 1))


def _step(number: int, value: Any) -> Step:
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, dict) or "kind" not in value:
        raise ScenarioError(f"step {number}: a step is a table with at least 'kind'")
    rest = dict(value)
    repeat = rest.pop("repeat", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise ScenarioError(f"step {number}: repeat must be a whole number >= 1")
    ttft = _distribution(rest.pop("ttft")) if "ttft" in rest else None
    tpot = rest.pop("tpot_ms", None)
    if tpot is not None and (not isinstance(tpot, int | float) or tpot < 0):
        raise ScenarioError(f"step {number}: tpot_ms must be a number >= 0")
    fault = None
    if rest.get("kind") == "ok":
        if len(rest) > 1:
            raise ScenarioError(f"step {number}: an 'ok' step takes only repeat, ttft, tpot_ms")
    else:
        try:
            fault = parse_fault(rest)
        except ScenarioError as exc:
            raise ScenarioError(f"step {number}: {exc}") from None
    return Step(fault, ttft, None if tpot is None else float(tpot), repeat)


def _recording(value: Any) -> Recording:
    try:
        return parse_recording(value)
    except RecordingError as exc:
        raise ScenarioError(f"recording: {exc}") from None


def _random_faults(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or "pool" not in value:
        raise ScenarioError("random_faults needs 'rate' and 'pool'")
    unknown = set(value) - {"rate", "pool"}
    if unknown:
        raise ScenarioError(f"unknown random_faults key(s): {', '.join(sorted(unknown))}")
    rate = float(value.get("rate", 0.0))
    if not 0.0 <= rate <= 1.0:
        raise ScenarioError("random_faults.rate must be between 0 and 1")
    return {"fault_rate": rate, "random_faults": tuple(parse_fault(f) for f in value["pool"])}


def _check(s: Scenario) -> None:
    if s.corpus not in ("english", "chinese"):
        raise ScenarioError("corpus must be 'english' or 'chinese' (or set text_file)")
    if s.output_tokens_min is not None and not 1 <= s.output_tokens_min <= s.output_tokens:
        raise ScenarioError("output_tokens_min must be between 1 and output_tokens")
    if s.tokens_per_chunk < 1 or s.output_tokens < 1:
        raise ScenarioError("tokens_per_chunk and output_tokens must be >= 1")
    try:
        parse_keep_alive(s.keep_alive)
    except KeepAliveError as exc:
        raise ScenarioError(f"keep_alive: {exc}") from exc
    if s.server not in ("vllm", "llamacpp"):
        raise ScenarioError("server must be 'vllm' or 'llamacpp'")
    if s.tool_calls_style not in ("default", "done_line", "interleaved"):
        raise ScenarioError("tool_calls_style must be 'default', 'done_line' or 'interleaved'")
    if s.after not in AFTER_LAST:
        raise ScenarioError("after must be 'ok', 'loop' or 'hold'")
    if s.batching not in ("continuous", "static"):
        raise ScenarioError("batching must be 'continuous' or 'static'")
    if s.n_batch < 1 or s.capacity < 0 or s.prefill_tokens_per_s < 0:
        raise ScenarioError("n_batch must be >= 1; capacity and prefill_tokens_per_s >= 0")
    if s.tile_px < 1 or s.image_size < 1 or s.tokens_per_tile < 0:
        raise ScenarioError("tile_px and image_size must be >= 1; tokens_per_tile >= 0")
    if s.encode_ms_per_megapixel < 0:
        raise ScenarioError("encode_ms_per_megapixel must not be negative")
    if s.starts_loading and s.load_ms <= 0:
        raise ScenarioError("starts_loading needs load_ms > 0 (how long the model loads)")
    if s.system_prompt_tokens < 0:
        raise ScenarioError("system_prompt_tokens must not be negative (0: none)")
    if s.tpot_ms < 0 or s.jitter_ms < 0 or s.load_ms < 0 or s.reasoning_tokens < 0:
        raise ScenarioError("times and counts must not be negative")
    if s.burst_ms < 0:
        raise ScenarioError("times and counts must not be negative")
