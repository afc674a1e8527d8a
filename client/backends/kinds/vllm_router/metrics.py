"""A router's own Prometheus figures (vllm-router's --prometheus-port, not its /metrics,
which is a worker's, forwarded): per worker its processed and running requests, health
and circuit breaker, and its routing decisions by policy. Pure: text in.

Names as the running router exports them (vllm-router 0.x, read from one):
vllm_router_processed_requests_total{worker}, vllm_router_running_requests{worker},
vllm_router_worker_health{worker} (1 healthy), vllm_router_cb_state{worker}
(0 closed, 1 open, 2 half_open), vllm_router_policy_decisions_total{policy,worker}.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.backends.figures.prometheus import parse_prometheus

PREFIX = "vllm_router_"
PROCESSED = "vllm_router_processed_requests_total"
RUNNING = "vllm_router_running_requests"
HEALTH = "vllm_router_worker_health"
BREAKER = "vllm_router_cb_state"
DECISIONS = "vllm_router_policy_decisions_total"
BREAKER_STATES = {0: "closed", 1: "open", 2: "half_open"}
DEFAULT_PORT = 29000  # where vllm-router exports them unless told another --prometheus-port


@dataclass(slots=True)
class RouterMetrics:
    processed: dict[str, float] = field(default_factory=dict)  # by worker url
    running: dict[str, float] = field(default_factory=dict)
    healthy: dict[str, bool] = field(default_factory=dict)
    breaker: dict[str, str] = field(default_factory=dict)  # closed, open, half_open
    decisions: dict[tuple[str, str], float] = field(default_factory=dict)  # (policy, worker)

    def counters(self) -> dict[str, float]:
        """Its counters by a flat key, for the rates between two readings."""
        found = {f"processed {w}": n for w, n in self.processed.items()}
        found.update({f"decisions {p} {w}": n for (p, w), n in self.decisions.items()})
        return found


def is_router_metrics(text: str) -> bool:
    return f"# TYPE {PREFIX}" in text or text.lstrip().startswith(PREFIX)


def parse_router_metrics(text: str) -> RouterMetrics:
    found = RouterMetrics()
    for sample in parse_prometheus(text):
        worker = sample.labels.get("worker")
        if worker is None:
            continue
        if sample.name == PROCESSED:
            found.processed[worker] = sample.value
        elif sample.name == RUNNING:
            found.running[worker] = sample.value
        elif sample.name == HEALTH:
            found.healthy[worker] = sample.value >= 1
        elif sample.name == BREAKER:
            found.breaker[worker] = BREAKER_STATES.get(int(sample.value), str(sample.value))
        elif sample.name == DECISIONS and "policy" in sample.labels:
            found.decisions[(sample.labels["policy"], worker)] = sample.value
    return found


# Policies that send a request wherever they like, whatever its prompt: a warm-up lands on
# one worker and the request after it, most likely, on another.
SPREADING_POLICIES = frozenset({"round_robin", "random", "power_of_two"})
