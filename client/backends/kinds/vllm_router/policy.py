"""Which policy a router routes by, as its own metrics' decisions name it, and whether
that policy sends a question where its warm-up went (by its prompt or session)."""

from __future__ import annotations

import time

from client.backends.figures.fetch import ServerFigures
from client.backends.kinds.vllm_router.figures import RouterFigures
from client.backends.kinds.vllm_router.metrics import SPREADING_POLICIES


async def routing_policies(base_url: str, metrics_url: str | None = None) -> list[str]:
    """The policies its metrics have decisions of; [] when not known (no metrics found,
    or no request routed yet). Never raises."""
    figures = ServerFigures()
    try:
        reader = RouterFigures(figures, base_url, None, time.monotonic)
        if metrics_url:
            reader.use_metrics(metrics_url)
        snap = await reader.read(await figures.get(base_url, "/workers"))
    finally:
        await figures.aclose()
    return sorted({decision.policy for decision in snap.decisions})


def routes_by_prompt(policies: list[str]) -> bool:
    """True only when the policies are known and none spreads requests whatever their
    prompt (cache_aware, consistent_hash ... send a prefix back where it went)."""
    return bool(policies) and not any(policy in SPREADING_POLICIES for policy in policies)
