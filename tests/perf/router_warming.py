"""Prefix warming's TTFT gain on two real local engines (`tachy serve-local`, SmolLM2-135M)
as workers: direct to one engine, through vllm-router's cache_aware, through its
round_robin. Each trial takes a prefix of its own (cold everywhere): the question alone,
then a new prefix warmed (prefix + a short message, 1 token) and asked. Run by hand:

    python -m tests.perf.router_warming [--trials 5]

It prints the median TTFT cold and warm per route and the gain (docs/pools.md)."""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.backends.kinds.routers import running_router

SYSTEM = " ".join(["You answer questions about the history of clocks and calendars."] * 40)
HISTORY = [
    {"role": "user", "content": "When were pendulum clocks invented?"},
    {"role": "assistant", "content": "Christiaan Huygens built the first one in 1656."},
]
QUESTION = "And who improved them after him?"


@contextmanager
def engines(count: int) -> Iterator[list[str]]:
    started = [
        subprocess.Popen(
            ["tachy", "serve-local", "--threads", "1", "--slots", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(count)
    ]
    try:
        yield [_url_of(process) for process in started]
    finally:
        for process in started:
            process.terminate()
            process.wait(30)


def _url_of(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            _until_ready(found.group(0))
            return found.group(0)
    raise RuntimeError("tachy serve-local printed no address")


def _until_ready(url: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).is_success:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)  # waiting for a process to start
    raise RuntimeError(f"{url} never became ready")


def ttft_ms(url: str, messages: list[dict[str, str]], max_tokens: int = 8) -> float:
    body = {"model": "any", "messages": messages, "max_tokens": max_tokens, "stream": True}
    start = time.perf_counter()
    elapsed = None
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=120) as reply:
        for line in reply.iter_lines():  # read to the end: the next request finds it idle
            text = line.replace(" ", "")
            if elapsed is None and '"content":"' in text and '"content":""' not in text:
                elapsed = (time.perf_counter() - start) * 1000
    if elapsed is None:
        raise RuntimeError("no token came")
    return elapsed


def trial(url: str, n: str) -> tuple[float, float]:
    """One cold question, then one warmed: each with a prefix never sent before (the
    engines keep past prompts in a RAM cache too, so no prefix is sent twice)."""
    cold_prefix = [{"role": "system", "content": f"Trial {n} cold. {SYSTEM}"}, *HISTORY]
    cold = ttft_ms(url, [*cold_prefix, {"role": "user", "content": QUESTION}])
    prefix = [{"role": "system", "content": f"Trial {n} warm. {SYSTEM}"}, *HISTORY]
    ttft_ms(url, [*prefix, {"role": "user", "content": "Hi"}], max_tokens=1)  # the warm-up
    warm = ttft_ms(url, [*prefix, {"role": "user", "content": QUESTION}])
    return cold, warm


def measure(name: str, url: str, trials: int) -> None:
    pairs = [trial(url, f"{name} {n}") for n in range(trials)]
    cold = statistics.median(c for c, _ in pairs)
    warm = statistics.median(w for _, w in pairs)
    print(f"{name:<22} cold {cold:7.0f} ms  warm {warm:7.0f} ms  gain {cold - warm:7.0f} ms")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    trials = parser.parse_args().trials
    with engines(2) as urls:
        measure("direct (one engine)", urls[0], trials)
        for policy in ("cache_aware", "round_robin"):
            with running_router(urls, policy) as router:
                measure(f"router {policy}", router.url, trials)


if __name__ == "__main__":
    main()
