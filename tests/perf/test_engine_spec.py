"""Speculative decoding on the local engine: decode tokens/s with and without it, on a
copying task ("repeat this code with one change", where guesses from the prompt are
right) and on free chat (where they rarely are).

Engines with and without speculation run side by side and take requests in turn, so
drift in this shared machine's load hits both alike; greedy decoding (temperature 0),
so both write the same text. Medians of the engine's own `timings.predicted_per_second`.

What the default (engine_settings: speculation off) rests on, asserted below: copying
pays (every draft guessed from the prompt, 2.3-2.5x here) and free chat is never slowed
(ratio at least 0.9). On free chat ngram-mod measured 1.13-1.24x with the engine's batch-32
settings (0.93x before them), all of it from SmolLM2's greedy story repeating itself
(one round of four at ~80 tokens/s, the rest near the baseline); whether that holds for
answers that do not repeat is not measured, so the default stays off and both ratios are
printed for the README's advice.
"""

from __future__ import annotations

import statistics

import httpx
import pytest

from client.backends.engine_settings import EngineSettings
from client.backends.local_engine import LocalEngine

pytestmark = [pytest.mark.perf, pytest.mark.engine]

ROUNDS = 4
KINDS = ("ngram-simple", "ngram-mod")
CODE = "\n".join(f"def f{i}(x):\n    return x * {i} + 1\n" for i in range(12))
COPY = f"Repeat this code exactly, with f0 renamed to g0:\n\n{CODE}"
CHAT = "Write a short story about a lighthouse keeper who finds a map in a bottle."


def decode(client: httpx.Client, engine: LocalEngine, prompt: str, tokens: int) -> dict:
    body = {
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": tokens,
        "temperature": 0,
        "seed": 1,
    }
    answer = client.post(f"{engine.url}/v1/chat/completions", json=body)
    answer.raise_for_status()
    return answer.json()["timings"]


def compare(prompt: str, tokens: int) -> dict[str, tuple[float, float]]:
    """kind -> (median tokens/s ratio with / without, acceptance)."""
    engines = {"": LocalEngine()} | {
        kind: LocalEngine(settings=EngineSettings.default().with_changes(spec=kind))
        for kind in KINDS
    }
    rates: dict[str, list[float]] = {kind: [] for kind in engines}
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
                    rates[kind].append(timings["predicted_per_second"])
                    drafted[kind] += timings.get("draft_n", 0)
                    accepted[kind] += timings.get("draft_n_accepted", 0)
    finally:
        for engine in engines.values():
            engine.stop_sync()
    base = statistics.median(rates[""])
    print(f"  without: {[round(r, 1) for r in rates['']]} tokens/s, median {base:.1f}")
    results = {}
    for kind in KINDS:
        median = statistics.median(rates[kind])
        share = accepted[kind] / drafted[kind] if drafted[kind] else 0.0
        results[kind] = (median / base, share)
        print(
            f"  {kind}: {[round(r, 1) for r in rates[kind]]} tokens/s, median {median:.1f} "
            f"({median / base:.2f}x), {accepted[kind]:.0f}/{drafted[kind]:.0f} drafts accepted"
        )
    return results


@pytest.mark.timeout(1800)
def test_speculation_pays_on_copying_and_never_slows_free_chat() -> None:
    print("\ncopying task (200 tokens):")
    copying = compare(COPY, 200)
    print("free chat (120 tokens):")
    chat = compare(CHAT, 120)
    assert max(share for _, share in copying.values()) > 0.5  # the guesses are right there
    assert max(ratio for ratio, _ in copying.values()) > 1.5, copying  # and they pay
    # Turned on for a copying task, it must not cost the chat that follows.
    assert all(ratio >= 0.9 for ratio, _ in chat.values()), chat
