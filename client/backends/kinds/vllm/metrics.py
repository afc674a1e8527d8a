"""vLLM's side of the server view, from its /metrics (Prometheus text) and /version.

`vllm:num_requests_running` / `_waiting`, `vllm:kv_cache_usage_perc` (older:
`vllm:gpu_cache_usage_perc`), TTFT P50/P95 estimated from the
`vllm:time_to_first_token_seconds` histogram buckets, speculative decoding acceptance =
`vllm:spec_decode_num_accepted_tokens_total` / `..._num_draft_tokens_total`. Prompt and
decode tokens/s from the rates of `vllm:prompt_tokens_total` and
`vllm:generation_tokens_total` between two polls, prefix-cache hits from
`vllm:prefix_cache_hits_total` / `..._queries_total`, the engine's state from
`vllm:engine_sleep_state`, the TTFT of the last minute from the histogram's growth since
the poll a minute ago (beside the server's lifetime one), its version from /version.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from client.backends.figures.fetch import Reply, ServerFigures
from client.backends.figures.prometheus import (
    Sample,
    buckets,
    first,
    histogram_quantile,
    parse_prometheus,
    ratio,
    recent_quantiles,
    total,
)
from client.backends.figures.snapshot import ServerSnapshot, json_if_ok
from client.backends.kinds.vllm.timings import KIND_NAME

PREFIX = "vllm:"
RECENT_S = 60.0  # the server view's recent window
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
    snap = ServerSnapshot(KIND_NAME)
    snap.running = total(samples, "vllm:num_requests_running", model)
    snap.waiting = total(samples, "vllm:num_requests_waiting", model)
    snap.kv_cache_use = first(
        samples, ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"), model
    )
    ttft = buckets(samples, "vllm:time_to_first_token_seconds", model)
    if ttft and ttft[-1][1] > 0:
        p50, p95 = histogram_quantile(ttft, 0.5), histogram_quantile(ttft, 0.95)
        snap.ttft_p50_ms = p50 * 1000.0 if p50 is not None else None
        snap.ttft_p95_ms = p95 * 1000.0 if p95 is not None else None
        snap.ttft_n = int(ttft[-1][1])
    snap.ttft_buckets = ttft
    snap.spec_acceptance = ratio(
        total(samples, "vllm:spec_decode_num_accepted_tokens_total", model),
        total(samples, "vllm:spec_decode_num_draft_tokens_total", model),
    )
    _add_counters(snap, samples, model, before or {}, elapsed_s)
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


def _add_counters(
    snap: ServerSnapshot,
    samples: list[Sample],
    model: str | None,
    before: dict[str, float],
    elapsed_s: float | None,
) -> None:
    for name in VLLM_COUNTERS:
        value = total(samples, name, model)
        if value is not None:
            snap.counters[name] = value
    now = snap.counters

    def rate(name: str) -> float | None:
        if name not in now or name not in before or not elapsed_s or elapsed_s <= 0:
            return None
        return max(now[name] - before[name], 0.0) / elapsed_s  # a restart resets a counter

    snap.prompt_tokens_per_s = rate("vllm:prompt_tokens_total")
    snap.decode_tokens_per_s = rate("vllm:generation_tokens_total")
    snap.cache_hit_rate = ratio(
        now.get("vllm:prefix_cache_hits_total"), now.get("vllm:prefix_cache_queries_total")
    )


class VllmFigures:
    """The FiguresReader of a vLLM server: rates since the last poll, the TTFT of the
    last minute, and its version (asked once)."""

    def __init__(
        self, figures: ServerFigures, base_url: str, model: str | None, clock: Callable[[], float]
    ) -> None:
        self._figures, self.base_url, self.model, self._clock = figures, base_url, model, clock
        self._counters: dict[str, float] = {}
        self._polled_at: float | None = None  # when self._counters were read
        self._ttft_history: deque[tuple[float, list[tuple[float, float]]]] = deque()
        self._version: str | None = None

    async def read(self, reply: Reply) -> ServerSnapshot:
        now = self._clock()
        elapsed = now - self._polled_at if self._polled_at is not None else None
        snap = parse_vllm_metrics(reply.text, self.model, self._counters, elapsed)
        self._counters, self._polled_at = snap.counters, now
        self._add_recent(snap, now)
        if self._version is None:
            body = json_if_ok(await self._figures.get(self.base_url, "/version"))
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
            then, earlier = history[0]
            p50, p95, n = recent_quantiles(snap.ttft_buckets, earlier)
            snap.recent_ttft_p50_ms, snap.recent_ttft_p95_ms, snap.recent_ttft_n = p50, p95, n
            snap.recent_s = now - then
        history.append((now, snap.ttft_buckets))
