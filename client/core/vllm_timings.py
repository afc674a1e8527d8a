"""vLLM's own per-request timings, in one shape whichever vLLM sent them.

vLLM 0.32 with --enable-per-request-metrics puts on the usage chunk `metrics:
{time_to_first_token_ms, generation_time_ms, queue_time_ms, mean_itl_ms,
tokens_per_second}` (tokens_per_second is completion tokens over the whole request,
first-token wait included: not a decode rate). Older vLLMs sent wall-clock seconds
taken in the server's process: arrival_time, first_scheduled_time, first_token_time,
time_in_queue, last_token_time / finished_time. Durations only: clocks of two
processes are never compared.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class VllmTimings:
    ttft_ms: float  # arrival -> first token, the queue included
    queue_ms: float | None = None  # waiting to be scheduled
    prefill_ms: float | None = None  # scheduled -> first token
    decode_ms: float | None = None  # first token -> last token
    itl_ms: float | None = None  # the server's mean gap between tokens


def vllm_timings(values: dict[str, float]) -> VllmTimings | None:
    """The timings in either vLLM's names; None when neither gives a first token."""
    if "time_to_first_token_ms" in values:
        return _current(values)
    return _older(values)


def _current(v: dict[str, float]) -> VllmTimings:
    ttft = v["time_to_first_token_ms"]
    queue = v.get("queue_time_ms")
    return VllmTimings(
        ttft_ms=ttft,
        queue_ms=queue,
        prefill_ms=max(ttft - queue, 0.0) if queue is not None else None,
        decode_ms=v.get("generation_time_ms"),
        itl_ms=v.get("mean_itl_ms"),
    )


def _older(v: dict[str, float]) -> VllmTimings | None:
    arrival, first = v.get("arrival_time"), v.get("first_token_time")
    if arrival is None or first is None:
        return None
    scheduled = v.get("first_scheduled_time")
    last = v.get("last_token_time", v.get("finished_time"))
    queue = v.get("time_in_queue")
    return VllmTimings(
        ttft_ms=(first - arrival) * 1000.0,
        queue_ms=queue * 1000.0 if queue is not None else None,
        prefill_ms=(first - scheduled) * 1000.0 if scheduled is not None else None,
        decode_ms=(last - first) * 1000.0 if last is not None else None,
    )
