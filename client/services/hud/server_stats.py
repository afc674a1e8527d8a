"""What the server says about itself, for the HUD's server view. Qt-free.

- vLLM `/metrics` (Prometheus text): `vllm:num_requests_running` / `_waiting`,
  `vllm:kv_cache_usage_perc` (older: `vllm:gpu_cache_usage_perc`), TTFT P50/P95 estimated
  from the `vllm:time_to_first_token_seconds` histogram buckets, speculative decoding
  acceptance = `vllm:spec_decode_num_accepted_tokens_total` / `..._num_draft_tokens_total`.
  Prompt and decode tokens/s from the rates of `vllm:prompt_tokens_total` and
  `vllm:generation_tokens_total` between two polls, prefix-cache hits from
  `vllm:prefix_cache_hits_total` / `..._queries_total`, the engine's state from
  `vllm:engine_sleep_state`, the TTFT of the last minute from the histogram's growth
  since the poll a minute ago (beside the server's lifetime one), its version from /version.
- llama.cpp `/metrics` (server started with `--metrics`): `llamacpp:requests_processing` /
  `_deferred`, `llamacpp:kv_cache_usage_ratio`, acceptance from
  `llamacpp:spec_decode_num_accepted_tokens_total` / `..._draft_tokens_total` (older builds:
  `llamacpp:tokens_drafted_accepted_total` / `tokens_drafted_total`). llama.cpp exports no
  TTFT histogram, so its server-side TTFT stays empty.
  Prompt and decode tokens/s from `prompt_tokens_total` / `prompt_seconds_total` and
  `tokens_predicted_total` / `tokens_predicted_seconds_total` (over the last poll's
  interval when the server worked in it, else over its life), prompt-cache hits from
  `prompt_tokens_cached_total`; `/slots` gives the busy slots and each slot's context,
  `/props` the slot count and whether the model sleeps (unloaded after idle).
- Ollama `/api/ps`: loaded models, VRAM, and when each unloads (`expires_at`).

Parsers are pure (text in, snapshot out). `ServerStatsPoller.poll()` does a few short GETs
through client.backends.server_figures and never raises: a failure becomes a snapshot
with `error` set.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from client.backends.server_figures import Reply, ServerFigures

FOREVER_AFTER_S = 10 * 365 * 24 * 3600  # Ollama's keep_alive -1 gives a far-future expiry

_SAMPLE = re.compile(
    r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\S+)?$"
)
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def parse_prometheus(text: str) -> list[Sample]:
    """Prometheus text exposition format; lines that do not parse are skipped."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if match is None:
            continue
        try:
            value = float(match["value"])
        except ValueError:
            continue
        labels = {k: _unescape(v) for k, v in _LABEL.findall(match["labels"] or "")}
        samples.append(Sample(match["name"], labels, value))
    return samples


def _unescape(value: str) -> str:
    return value.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def histogram_quantile(buckets: Iterable[tuple[float, float]], q: float) -> float | None:
    """Prometheus' histogram_quantile: linear interpolation inside the bucket that holds
    the q-th observation; buckets are (upper bound `le`, cumulative count). q in [0, 1]."""
    ordered = sorted(buckets)
    if not ordered or ordered[-1][1] <= 0:
        return None
    total = ordered[-1][1]
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in ordered:
        if count >= rank and count > lower_count:
            if math.isinf(bound):
                return lower_bound  # beyond the last finite bucket: its bound is all we know
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (
                count - lower_count
            )
        lower_bound, lower_count = bound, count
    return lower_bound


@dataclass(frozen=True, slots=True)
class LoadedModel:
    name: str
    size: int | None = None
    size_vram: int | None = None
    expires_at: datetime | None = None

    def seconds_left(self, now: datetime) -> float | None:
        """Until the server unloads it; None when it stays loaded (keep_alive -1)."""
        if self.expires_at is None:
            return None
        left = (self.expires_at - now).total_seconds()
        return None if left > FOREVER_AFTER_S else max(left, 0.0)


@dataclass(slots=True)
class ServerSnapshot:
    kind: str  # "vllm", "llamacpp", "ollama" or "" (nothing recognised)
    running: float | None = None
    waiting: float | None = None
    kv_cache_use: float | None = None  # 0..1
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    ttft_n: int = 0
    spec_acceptance: float | None = None  # accepted / draft tokens, 0..1
    prompt_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    cache_hit_rate: float | None = None  # prompt tokens from the cache / all, 0..1
    busy_slots: int | None = None
    total_slots: int | None = None
    slot_ctx: int | None = None  # context tokens of each slot
    sleeping: bool | None = None  # llama.cpp unloaded the model after idle
    engine_state: str | None = None  # vLLM: awake, weights_offloaded, discard_all
    version: str | None = None  # vLLM's /version
    ttft_buckets: list[tuple[float, float]] = field(default_factory=list)  # vLLM's, lifetime
    recent_ttft_p50_ms: float | None = None  # over the last RECENT_S (histogram deltas)
    recent_ttft_p95_ms: float | None = None
    recent_ttft_n: int = 0
    recent_s: float | None = None  # how long that window really is (shorter at first)
    counters: dict[str, float] = field(default_factory=dict)  # for the next poll's rates
    models: list[LoadedModel] = field(default_factory=list)
    error: str = ""  # a sentence for the user when the server offers nothing


def _total(samples: list[Sample], name: str, model: str | None = None) -> float | None:
    """Sum over label sets (e.g. several engines), optionally only one model_name."""
    found = [
        s.value
        for s in samples
        if s.name == name and (model is None or s.labels.get("model_name") in (None, model))
    ]
    return sum(found) if found else None


def _first(samples: list[Sample], names: Iterable[str], model: str | None = None) -> float | None:
    for name in names:
        value = _total(samples, name, model)
        if value is not None:
            return value
    return None


def _ratio(accepted: float | None, draft: float | None) -> float | None:
    return accepted / draft if accepted is not None and draft else None


def _buckets(samples: list[Sample], name: str, model: str | None) -> list[tuple[float, float]]:
    by_bound: dict[float, float] = {}
    for s in samples:
        if s.name == f"{name}_bucket" and "le" in s.labels:
            if model is not None and s.labels.get("model_name") not in (None, model):
                continue
            bound = float(s.labels["le"])  # "+Inf" parses as inf
            by_bound[bound] = by_bound.get(bound, 0.0) + s.value
    return sorted(by_bound.items())


VLLM_COUNTERS = (
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:prefix_cache_hits_total",
    "vllm:prefix_cache_queries_total",
)


def parse_vllm_metrics(
    text: str,
    model: str | None = None,
    before: dict[str, float] | None = None,
    elapsed_s: float | None = None,
) -> ServerSnapshot:
    """`before`: the counters `elapsed_s` ago (the last poll), for tokens/s."""
    samples = parse_prometheus(text)
    if model is not None and not any(s.labels.get("model_name") == model for s in samples):
        model = None  # the server calls it by another name: show its figures anyway
    snap = ServerSnapshot("vllm")
    snap.running = _total(samples, "vllm:num_requests_running", model)
    snap.waiting = _total(samples, "vllm:num_requests_waiting", model)
    snap.kv_cache_use = _first(
        samples, ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"), model
    )
    buckets = _buckets(samples, "vllm:time_to_first_token_seconds", model)
    if buckets and buckets[-1][1] > 0:
        p50, p95 = histogram_quantile(buckets, 0.5), histogram_quantile(buckets, 0.95)
        snap.ttft_p50_ms = p50 * 1000.0 if p50 is not None else None
        snap.ttft_p95_ms = p95 * 1000.0 if p95 is not None else None
        snap.ttft_n = int(buckets[-1][1])
    snap.ttft_buckets = buckets
    snap.spec_acceptance = _ratio(
        _total(samples, "vllm:spec_decode_num_accepted_tokens_total", model),
        _total(samples, "vllm:spec_decode_num_draft_tokens_total", model),
    )
    _add_vllm_counters(snap, samples, model, before or {}, elapsed_s)
    snap.engine_state = next(
        (
            s.labels.get("sleep_state")
            for s in samples
            if s.name == "vllm:engine_sleep_state" and s.value == 1
        ),
        None,
    )
    if snap.engine_state is not None:
        snap.sleeping = snap.engine_state != "awake"
    return snap


def _add_vllm_counters(
    snap: ServerSnapshot,
    samples: list[Sample],
    model: str | None,
    before: dict[str, float],
    elapsed_s: float | None,
) -> None:
    for name in VLLM_COUNTERS:
        value = _total(samples, name, model)
        if value is not None:
            snap.counters[name] = value
    now = snap.counters

    def rate(name: str) -> float | None:
        if name not in now or name not in before or not elapsed_s or elapsed_s <= 0:
            return None
        return max(now[name] - before[name], 0.0) / elapsed_s  # a restart resets a counter

    snap.prompt_tokens_per_s = rate("vllm:prompt_tokens_total")
    snap.decode_tokens_per_s = rate("vllm:generation_tokens_total")
    snap.cache_hit_rate = _ratio(
        now.get("vllm:prefix_cache_hits_total"), now.get("vllm:prefix_cache_queries_total")
    )


RECENT_S = 60.0  # the server view's recent window


def recent_quantiles(
    now: list[tuple[float, float]], then: list[tuple[float, float]]
) -> tuple[float | None, float | None, int]:
    """TTFT P50 and P95 (ms) and n of the requests between two readings of the histogram:
    the difference of its cumulative buckets."""
    earlier = dict(then)
    delta = [(bound, count - earlier.get(bound, 0.0)) for bound, count in now]
    n = int(delta[-1][1]) if delta else 0
    if n <= 0 or any(count < 0 for _, count in delta):  # none, or the server restarted
        return None, None, 0
    p50, p95 = histogram_quantile(delta, 0.5), histogram_quantile(delta, 0.95)
    return (
        p50 * 1000.0 if p50 is not None else None,
        p95 * 1000.0 if p95 is not None else None,
        n,
    )


COUNTERS = (
    "llamacpp:prompt_tokens_total",
    "llamacpp:prompt_seconds_total",
    "llamacpp:tokens_predicted_total",
    "llamacpp:tokens_predicted_seconds_total",
    "llamacpp:prompt_tokens_cached_total",
)


def parse_llamacpp_metrics(text: str, before: dict[str, float] | None = None) -> ServerSnapshot:
    """`before`: the counters of the previous poll, for rates over its interval."""
    samples = parse_prometheus(text)
    snap = ServerSnapshot("llamacpp")
    for name in COUNTERS:
        value = _total(samples, name)
        if value is not None:
            snap.counters[name] = value
    snap.prompt_tokens_per_s = _rate(snap.counters, before or {}, "prompt_tokens", "prompt")
    snap.decode_tokens_per_s = _rate(
        snap.counters, before or {}, "tokens_predicted", "tokens_predicted"
    )
    computed = snap.counters.get("llamacpp:prompt_tokens_total")
    cached = snap.counters.get("llamacpp:prompt_tokens_cached_total")
    if computed is not None and cached is not None and computed + cached > 0:
        snap.cache_hit_rate = cached / (computed + cached)
    snap.running = _total(samples, "llamacpp:requests_processing")
    snap.waiting = _total(samples, "llamacpp:requests_deferred")
    snap.kv_cache_use = _total(samples, "llamacpp:kv_cache_usage_ratio")
    snap.spec_acceptance = _ratio(
        _first(
            samples,
            (
                "llamacpp:spec_decode_num_accepted_tokens_total",
                "llamacpp:tokens_drafted_accepted_total",
            ),
        ),
        _first(
            samples,
            ("llamacpp:spec_decode_num_draft_tokens_total", "llamacpp:tokens_drafted_total"),
        ),
    )
    return snap


def _rate(
    now: dict[str, float], before: dict[str, float], tokens: str, seconds: str
) -> float | None:
    """Tokens per second over the last interval when the server worked in it, else
    over its whole life; None before it did any such work. Less than a millisecond of
    work is none: a warm-up's one token took no decode time (1,000,000 tokens/s)."""
    t_key, s_key = f"llamacpp:{tokens}_total", f"llamacpp:{seconds}_seconds_total"
    if t_key not in now or s_key not in now:
        return None
    spent = now[s_key] - before.get(s_key, now[s_key])
    if spent >= MIN_WORK_S:
        return (now[t_key] - before.get(t_key, 0.0)) / spent
    return now[t_key] / now[s_key] if now[s_key] >= MIN_WORK_S else None


MIN_WORK_S = 0.001  # seconds of work a rate is read over, at least


def add_llamacpp_slots(snap: ServerSnapshot, slots: object, props: object) -> None:
    """/slots: [{"is_processing", "n_ctx", ...}, ...]; /props: {"total_slots", "is_sleeping"}."""
    if isinstance(slots, list):
        entries = [s for s in slots if isinstance(s, dict)]
        snap.total_slots = len(entries) or None
        snap.busy_slots = sum(1 for s in entries if s.get("is_processing") is True)
        ctx = entries[0].get("n_ctx") if entries else None
        snap.slot_ctx = int(ctx) if isinstance(ctx, int) and not isinstance(ctx, bool) else None
    if isinstance(props, dict):
        total = props.get("total_slots")
        if isinstance(total, int) and not isinstance(total, bool):
            snap.total_slots = total
        if isinstance(props.get("is_sleeping"), bool):
            snap.sleeping = props["is_sleeping"]


def parse_metrics(
    text: str, model: str | None = None, before: dict[str, float] | None = None
) -> ServerSnapshot:
    """Whichever server wrote this /metrics text."""
    if "vllm:" in text:
        return parse_vllm_metrics(text, model)
    if "llamacpp:" in text:
        return parse_llamacpp_metrics(text, before)
    return ServerSnapshot("", error="This server's /metrics has no vLLM or llama.cpp figures.")


def parse_ollama_ps(body: object) -> ServerSnapshot:
    snap = ServerSnapshot("ollama")
    entries = body.get("models") if isinstance(body, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        name = entry.get("name") or entry.get("model")
        if not isinstance(name, str):
            continue
        snap.models.append(
            LoadedModel(
                name,
                _count(entry.get("size")),
                _count(entry.get("size_vram")),
                _when(entry.get("expires_at")),
            )
        )
    return snap


def _count(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _when(value: object) -> datetime | None:
    """Ollama writes Go times: RFC 3339 with up to 9 fractional digits and an offset."""
    if not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00")
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)  # Python takes at most microseconds
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


class ServerStatsPoller:
    """A few short GETs per poll; never raises, never waits long."""

    def __init__(
        self, figures: ServerFigures, base_url: str, api: str, model: str | None = None
    ) -> None:
        self._figures = figures
        self.base_url = base_url.rstrip("/")
        self.api = api  # "ollama" or "openai"
        self.model = model
        self._counters: dict[str, float] = {}
        self._last_slots: list[dict[str, Any]] | None = None  # the last /slots reply
        self.clock: Callable[[], float] = time.monotonic
        self._polled_at: float | None = None  # when self._counters were read
        self._ttft_history: deque[tuple[float, list[tuple[float, float]]]] = deque()
        self._version: str | None = None

    async def poll(self) -> ServerSnapshot:
        path = "/api/ps" if self.api == "ollama" else "/metrics"
        reply = await self._figures.get(self.base_url, path)
        failed = _failure(reply)
        if failed is not None:
            return failed
        if self.api == "ollama":
            body = reply.json()
            if body is None:
                return ServerSnapshot("", error="The server's /api/ps did not answer JSON.")
            return parse_ollama_ps(body)
        if "vllm:" in reply.text:
            return await self._vllm(reply.text)
        snap = parse_metrics(reply.text, self.model, self._counters)
        if snap.kind == "llamacpp":
            self._counters = snap.counters
            props = _json_if_ok(await self._figures.get(self.base_url, "/props"))
            add_llamacpp_slots(snap, await self._slots(snap, props), props)
        return snap

    async def _vllm(self, text: str) -> ServerSnapshot:
        now = self.clock()
        elapsed = now - self._polled_at if self._polled_at is not None else None
        snap = parse_vllm_metrics(text, self.model, self._counters, elapsed)
        self._counters, self._polled_at = snap.counters, now
        self._add_recent(snap, now)
        if self._version is None:
            body = _json_if_ok(await self._figures.get(self.base_url, "/version"))
            version = body.get("version") if isinstance(body, dict) else None
            self._version = version if isinstance(version, str) else ""
        snap.version = self._version or None
        return snap

    def _add_recent(self, snap: ServerSnapshot, now: float) -> None:
        """The TTFT of the last RECENT_S: the histogram now less the newest reading at
        least that old (the oldest one while the view has watched for less)."""
        history = self._ttft_history
        while len(history) > 1 and history[1][0] <= now - RECENT_S:
            history.popleft()
        if history and snap.ttft_buckets:
            then, buckets = history[0]
            p50, p95, n = recent_quantiles(snap.ttft_buckets, buckets)
            snap.recent_ttft_p50_ms, snap.recent_ttft_p95_ms, snap.recent_ttft_n = p50, p95, n
            snap.recent_s = now - then
        history.append((now, snap.ttft_buckets))

    async def _slots(self, snap: ServerSnapshot, props: object) -> object:
        """/slots, read only while the server works (or once, for its slot sizes): a
        GET /slots is a task to llama-server and restarts its idle clock, so polling it
        every second would keep an engine with unload-after-idle from ever sleeping.
        Idle, the last reply stands in with no slot busy."""
        asleep = isinstance(props, dict) and props.get("is_sleeping") is True
        if self._last_slots is not None and (asleep or not snap.running):
            return [{**slot, "is_processing": False} for slot in self._last_slots]
        slots = _json_if_ok(await self._figures.get(self.base_url, "/slots"))
        if isinstance(slots, list):
            self._last_slots = [slot for slot in slots if isinstance(slot, dict)]
        return slots


def _failure(reply: Reply) -> ServerSnapshot | None:
    if reply.error:
        return ServerSnapshot("", error=reply.error)
    if reply.status == 404:
        hint = " (start llama.cpp server with --metrics)" if reply.path == "/metrics" else ""
        return ServerSnapshot("", error=f"This server does not offer {reply.path}{hint}.")
    if reply.status is not None and reply.status >= 400:
        return ServerSnapshot("", error=f"The server's {reply.path} answered HTTP {reply.status}.")
    return None


def _json_if_ok(reply: Reply) -> object:
    return reply.json() if _failure(reply) is None else None
