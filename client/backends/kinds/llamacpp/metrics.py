"""llama.cpp server's side of the server view: /metrics (started with `--metrics`),
/slots and /props.

`llamacpp:requests_processing` / `_deferred`, `llamacpp:kv_cache_usage_ratio`,
acceptance from `llamacpp:spec_decode_num_accepted_tokens_total` / `..._draft_tokens_total`
(older builds: `llamacpp:tokens_drafted_accepted_total` / `tokens_drafted_total`).
llama.cpp exports no TTFT histogram, so its server-side TTFT stays empty. Prompt and
decode tokens/s from `prompt_tokens_total` / `prompt_seconds_total` and
`tokens_predicted_total` / `tokens_predicted_seconds_total` (over the last poll's interval
when the server worked in it, else over its life), prompt-cache hits from
`prompt_tokens_cached_total`; `/slots` gives the busy slots and each slot's context,
`/props` the slot count and whether the model sleeps (unloaded after idle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.backends.figures.fetch import Reply, ServerFigures
from client.backends.figures.prometheus import first, parse_prometheus, ratio, total
from client.backends.figures.snapshot import ServerSnapshot, json_if_ok
from client.backends.kinds.llamacpp.timings import KIND_NAME

PREFIX = "llamacpp:"
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
    snap = ServerSnapshot(KIND_NAME)
    for name in COUNTERS:
        value = total(samples, name)
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
    snap.running = total(samples, "llamacpp:requests_processing")
    snap.waiting = total(samples, "llamacpp:requests_deferred")
    snap.kv_cache_use = total(samples, "llamacpp:kv_cache_usage_ratio")
    snap.spec_acceptance = ratio(
        first(
            samples,
            (
                "llamacpp:spec_decode_num_accepted_tokens_total",
                "llamacpp:tokens_drafted_accepted_total",
            ),
        ),
        first(
            samples,
            ("llamacpp:spec_decode_num_draft_tokens_total", "llamacpp:tokens_drafted_total"),
        ),
    )
    return snap


def parse_metrics(text: str, model: str | None, before: dict[str, float] | None) -> ServerSnapshot:
    return parse_llamacpp_metrics(text, before)  # one model per server: no label to pick


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
        total_slots = props.get("total_slots")
        if isinstance(total_slots, int) and not isinstance(total_slots, bool):
            snap.total_slots = total_slots
        if isinstance(props.get("is_sleeping"), bool):
            snap.sleeping = props["is_sleeping"]


class LlamacppFigures:
    """The FiguresReader of a llama.cpp server: rates over the last poll, and its slots."""

    def __init__(
        self, figures: ServerFigures, base_url: str, model: str | None, clock: Callable[[], float]
    ) -> None:
        self._figures, self.base_url = figures, base_url
        self._counters: dict[str, float] = {}
        self._last_slots: list[dict[str, Any]] | None = None  # the last /slots reply

    async def read(self, reply: Reply) -> ServerSnapshot:
        snap = parse_llamacpp_metrics(reply.text, self._counters)
        self._counters = snap.counters
        props = json_if_ok(await self._figures.get(self.base_url, "/props"))
        add_llamacpp_slots(snap, await self._slots(snap, props), props)
        return snap

    async def _slots(self, snap: ServerSnapshot, props: object) -> object:
        """/slots, read only while the server works (or once, for its slot sizes): a
        GET /slots is a task to llama-server and restarts its idle clock, so polling it
        every second would keep an engine with unload-after-idle from ever sleeping.
        Idle, the last reply stands in with no slot busy."""
        asleep = isinstance(props, dict) and props.get("is_sleeping") is True
        if self._last_slots is not None and (asleep or not snap.running):
            return [{**slot, "is_processing": False} for slot in self._last_slots]
        slots = json_if_ok(await self._figures.get(self.base_url, "/slots"))
        if isinstance(slots, list):
            self._last_slots = [slot for slot in slots if isinstance(slot, dict)]
        return slots
