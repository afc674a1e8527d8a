"""GET /metrics: Prometheus text format with vLLM's metric names, buckets and labels.

Names, help texts and buckets follow vLLM's v1 PrometheusStatLogger; every series carries
``model_name`` (and vLLM's ``engine`` index). Labels are printed in sorted order, as in
the example output of vLLM's metrics documentation.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field

# vLLM 0.32 (prometheus_client 0.2x) serves exposition format 1.0.0.
CONTENT_TYPE = "text/plain; version=1.0.0; charset=utf-8"

TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
                5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)  # fmt: skip
ITL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
               7.5, 10.0, 20.0, 40.0, 80.0)  # fmt: skip
REQUEST_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                   60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)  # fmt: skip


@dataclass(slots=True)
class Histogram:
    name: str
    help: str
    buckets: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    count: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.buckets)

    def observe(self, value: float) -> None:
        index = bisect.bisect_left(self.buckets, value)
        if index < len(self.counts):
            self.counts[index] += 1
        self.total += value
        self.count += 1

    def lines(self, labels: tuple[str, str]) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        cumulative = 0
        for bound, n in zip(self.buckets, self.counts, strict=True):
            cumulative += n
            out.append(
                f'{self.name}_bucket{{{labels[0]},le="{bound!r}",{labels[1]}}} {cumulative}.0'
            )
        out.append(f'{self.name}_bucket{{{labels[0]},le="+Inf",{labels[1]}}} {self.count}.0')
        out.append(f"{self.name}_count{{{labels[0]},{labels[1]}}} {self.count}.0")
        out.append(f"{self.name}_sum{{{labels[0]},{labels[1]}}} {self.total!r}")
        return out


class LabMetrics:
    """What a vLLM server would report about the lab's own replies."""

    def __init__(self) -> None:
        self.ttft = Histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            TTFT_BUCKETS,
        )
        self.itl = Histogram(
            "vllm:inter_token_latency_seconds",
            "Histogram of inter-token latency in seconds.",
            ITL_BUCKETS,
        )
        self.e2e = Histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            REQUEST_BUCKETS,
        )
        self.queue = Histogram(
            "vllm:request_queue_time_seconds",
            "Histogram of time spent in WAITING phase for request.",
            REQUEST_BUCKETS,
        )
        self.running = 0
        self.waiting = 0
        self.tokens_in_flight = 0
        self.kv_capacity_tokens = 65536
        self.draft_tokens = 0
        self.accepted_tokens = 0
        # llama.cpp's counters (its /metrics): prefill and decode totals.
        self.prompt_tokens_total = 0
        self.prompt_seconds_total = 0.0
        self.predicted_tokens_total = 0
        self.predicted_seconds_total = 0.0
        self.decode_total = 0
        self.busy_slots_sum = 0
        self.tokens_max = 0
        self.cached_tokens_total = 0  # prompt tokens served from the prompt cache

    def speculate(self, tokens: int, acceptance: float | None, rng: random.Random) -> None:
        """Speculative decoding counters: one draft token per output token."""
        if acceptance is None:
            return
        self.draft_tokens += tokens
        self.accepted_tokens += sum(rng.random() < acceptance for _ in range(tokens))

    def render(self, model_name: str, speculating: bool = False) -> str:
        labels = ('engine="0"', f'model_name="{_escape(model_name)}"')
        both = ",".join(labels)
        kv = min(1.0, self.tokens_in_flight / self.kv_capacity_tokens)
        lines: list[str] = []
        for name, help_text, value in (
            (
                "num_requests_running",
                "Number of requests in model execution batches.",
                self.running,
            ),
            ("num_requests_waiting", "Number of requests waiting to be processed.", self.waiting),
            ("kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kv),
        ):
            lines += _gauge(f"vllm:{name}", help_text, both, value)
        lines += _sleep_state(both)
        for name, help_text, value in (
            ("prompt_tokens", "Number of prefill tokens processed.", self.prompt_tokens_total),
            ("generation_tokens", "Number of generation tokens processed.",
             self.predicted_tokens_total),
            ("prefix_cache_queries", "Prefix cache queries, in terms of number of queried "
             "tokens.", self.prompt_tokens_total + self.cached_tokens_total),
            ("prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
             self.cached_tokens_total),
        ):  # fmt: skip
            lines += _counter(f"vllm:{name}", help_text, both, value)
        if speculating:  # vLLM exports these only with speculative decoding on
            for name, help_text, value in (
                ("spec_decode_num_draft_tokens", "Number of draft tokens.", self.draft_tokens),
                ("spec_decode_num_accepted_tokens", "Number of accepted tokens.",
                 self.accepted_tokens),
            ):  # fmt: skip
                lines += _counter(f"vllm:{name}", help_text, both, value)
        for histogram in (self.ttft, self.itl, self.e2e, self.queue):
            lines += histogram.lines(labels)
        return "\n".join(lines) + "\n"


def _gauge(name: str, help_text: str, labels: str, value: float) -> list[str]:
    return [
        f"# HELP {name} {help_text}",
        f"# TYPE {name} gauge",
        f"{name}{{{labels}}} {float(value)!r}",
    ]


SLEEP_HELP = (
    "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is "
    "awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2."
)


def _sleep_state(labels: str) -> list[str]:
    """vLLM's engine_sleep_state: the lab's engine is always awake."""
    name = "vllm:engine_sleep_state"
    lines = [f"# HELP {name} {SLEEP_HELP}", f"# TYPE {name} gauge"]
    for state, value in (("awake", 1.0), ("weights_offloaded", 0.0), ("discard_all", 0.0)):
        lines.append(f'{name}{{{labels},sleep_state="{state}"}} {value!r}')
    return lines


def _counter(name: str, help_text: str, labels: str, value: float) -> list[str]:
    return [
        f"# HELP {name}_total {help_text}",
        f"# TYPE {name}_total counter",
        f"{name}_total{{{labels}}} {float(value)!r}",
    ]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
