"""Speculative decoding on the local engine: decode speed with and without it, on a
copying task ("repeat this code with one change", where guesses from the prompt are
right) and on free chat (where they rarely are).

Engines with and without speculation run side by side and take requests in turn, so
drift in this shared machine's load hits both alike; greedy decoding (temperature 0),
so both write the same text. Judged on tokens per CPU second of each engine's process
(its /proc ticks over the request): wall-clock rates on a shared 2-core VM swing
between requests (23 and 39 tokens/s for the same request in one CI run, which put a
speculator that drafted nothing at 0.90x), CPU time does not count the time another
process or the hypervisor held the core. The engine's own wall rates
(`timings.predicted_per_second`) are printed beside them.

What the default (engine_settings: speculation off) rests on, asserted below: copying
pays (every draft guessed from the prompt: 2.3-2.5x on a fast machine, 1.20-1.34x on a
slow one) and free chat is never slowed (ratio at least 0.9; 0.95-1.02x on the slow
one). On free chat ngram-mod measured 1.13-1.24x with the engine's batch-32 settings
(0.93x before them), all of it from SmolLM2's greedy story repeating itself (one round
of four at ~80 tokens/s, the rest near the baseline); whether that holds for answers
that do not repeat is not measured, so the default stays off and both ratios are printed
for the advice in docs/benchmarks.md.
"""

from __future__ import annotations

import statistics

import httpx
import pytest

from client.backends.engine.engine_settings import EngineSettings
from client.backends.engine.local_engine import LocalEngine
from tests.engine_cpu import cpu_ticks

pytestmark = [pytest.mark.perf, pytest.mark.engine]

ROUNDS = 4
KINDS = ("ngram-simple", "ngram-mod")
CODE = "\n".join(f"def f{i}(x):\n    return x * {i} + 1\n" for i in range(12))
COPY = f"Repeat this code exactly, with f0 renamed to g0:\n\n{CODE}"
CHAT = "Write a short story about a lighthouse keeper who finds a map in a bottle."


def decode(client: httpx.Client, engine: LocalEngine, prompt: str, tokens: int) -> dict:
    """The engine's timings for one answer, with its tokens per CPU second added."""
    body = {
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": tokens,
        "temperature": 0,
        "seed": 1,
    }
    assert engine.pid is not None
    ticks = cpu_ticks(engine.pid)
    answer = client.post(f"{engine.url}/v1/chat/completions", json=body)
    answer.raise_for_status()
    timings: dict = answer.json()["timings"]
    cpu_s = max(cpu_ticks(engine.pid) - ticks, 1) / 100.0
    return timings | {"per_cpu_second": timings["predicted_n"] / cpu_s}


def compare(prompt: str, tokens: int) -> dict[str, tuple[float, float]]:
    """kind -> (median tokens per CPU second, with / without; acceptance)."""
    engines = {"": LocalEngine()} | {
        kind: LocalEngine(settings=EngineSettings.default().with_changes(spec=kind))
        for kind in KINDS
    }
    rates: dict[str, list[float]] = {kind: [] for kind in engines}
    walls: dict[str, list[float]] = {kind: [] for kind in engines}
    drafted = dict.fromkeys(engines, 0.0)
    accepted = dict.fromkeys(engines, 0.0)
    try:
        for engine in engines.values():
            engine.start_sync()
        with httpx.Client(timeout=600, trust_env=False) as client:
            for engine in engines.values():
                decode(client, engine, prompt, 8)  # first use: kernels, caches
            for _ in range(ROUNDS):
                for kind, engine in engines.items():
                    timings = decode(client, engine, prompt, tokens)
                    rates[kind].append(timings["per_cpu_second"])
                    walls[kind].append(timings["predicted_per_second"])
                    drafted[kind] += timings.get("draft_n", 0)
                    accepted[kind] += timings.get("draft_n_accepted", 0)
    finally:
        for engine in engines.values():
            engine.stop_sync()
    base = statistics.median(rates[""])
    print(
        f"  without: {[round(r, 1) for r in rates['']]} tokens per CPU second, median "
        f"{base:.1f} (wall {[round(r, 1) for r in walls['']]} tokens/s)"
    )
    results = {}
    for kind in KINDS:
        median = statistics.median(rates[kind])
        share = accepted[kind] / drafted[kind] if drafted[kind] else 0.0
        results[kind] = (median / base, share)
        wall = statistics.median(walls[kind]) / statistics.median(walls[""])
        print(
            f"  {kind}: {[round(r, 1) for r in rates[kind]]} tokens per CPU second, median "
            f"{median:.1f} ({median / base:.2f}x; wall {[round(r, 1) for r in walls[kind]]} "
            f"tokens/s, {wall:.2f}x), {accepted[kind]:.0f}/{drafted[kind]:.0f} drafts accepted"
        )
    return results


@pytest.mark.timeout(1800)
def test_speculation_pays_on_copying_and_never_slows_free_chat() -> None:
    print("\ncopying task (200 tokens):")
    copying = compare(COPY, 200)
    print("free chat (120 tokens):")
    chat = compare(CHAT, 120)
    assert max(share for _, share in copying.values()) > 0.5  # the guesses are right there
    # And they pay: 2.3-2.5x on a machine twice as fast at Python, 1.20-1.34x on a slow
    # CI one (tokens per CPU second steady within +-5 % there), where checking a draft
    # costs more next to a decode step.
    assert max(ratio for ratio, _ in copying.values()) > 1.15, copying
    # Turned on for a copying task, it must not cost the chat that follows.
    assert all(ratio >= 0.9 for ratio, _ in chat.values()), chat
