"""TTFT overhead of Tachy's backend layer versus a minimal raw httpx loop.

    python -m tests.perf.bench_backend [-n 60] [--api openai|ollama|both]

One deterministic aiohttp server runs in a child process (so its work does not share
this process's GIL or event loop): a role-only chunk at once, the first token after
FIRST_TOKEN_MS, then TOKENS - 1 more tokens GAP_MS apart, usage and the end marker.
Raw and Tachy requests alternate (A B A B ...) against it, each side with its own
pooled httpx client, after a few warm-up requests each.

TTFT is measured the same way on both sides, with an outside stopwatch
(perf_counter_ns):
  raw:   before build_request + client.send(stream=True) -> the first non-empty
         content delta, parsed minimally (split lines, json.loads, one field);
  tachy: before backend.chat(request) -> the first Token event out of the ChatStream.
So everything Tachy does on top (request body, ChatStream, trace hooks, deadlines,
decoder, events, timeline) counts as overhead. ChatStream's own ttft_ms (request
written -> first token) is reported beside it. Both sides read every reply to its end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx

from client.backends import backend_for
from client.backends.http_json import new_client
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Token, TokenKind

FIRST_TOKEN_MS = 20.0
GAP_MS = 2.0
TOKENS = 8
WORDS = ["Hello", ",", " this", " is", " a", " fixed", " reply", " from", " the", " bench"]
MODEL = "bench-model"
PROMPT = "Say hello."
NS_PER_MS = 1_000_000
GOAL_MS = 1.0


# ---------------------------------------------------------------- the server (child)


def _openai_chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def _ollama_line(content: str, done: bool = False) -> bytes:
    line: dict[str, Any] = {
        "model": MODEL,
        "created_at": "2024-01-01T00:00:00.000000Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    if done:
        line |= {"done_reason": "stop", "total_duration": 50_000_000, "eval_count": TOKENS}
    return json.dumps(line).encode() + b"\n"


async def _stream(
    request: Any, content_type: str, head: bytes, tokens: list[bytes], tail: bytes
) -> Any:
    from aiohttp import web

    await request.read()
    response = web.StreamResponse(headers={"Content-Type": content_type})
    await response.prepare(request)
    if head:
        await response.write(head)
    await asyncio.sleep(FIRST_TOKEN_MS / 1000)
    for index, token in enumerate(tokens):
        if index:
            await asyncio.sleep(GAP_MS / 1000)
        await response.write(token)
    await response.write(tail)
    await response.write_eof()
    return response


def _serve() -> None:
    from aiohttp import web

    words = [WORDS[i % len(WORDS)] for i in range(TOKENS)]
    usage = {"prompt_tokens": 5, "completion_tokens": TOKENS, "total_tokens": 5 + TOKENS}
    usage_chunk = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "choices": []}
    openai_tail = (
        _openai_chunk({}, "stop")
        + b"data: "
        + json.dumps(usage_chunk | {"usage": usage}).encode()
        + b"\n\ndata: [DONE]\n\n"
    )
    openai_head = _openai_chunk({"role": "assistant", "content": ""})
    openai_tokens = [_openai_chunk({"content": word}) for word in words]
    ollama_tokens = [_ollama_line(word) for word in words]

    async def openai(request: Any) -> Any:
        return await _stream(request, "text/event-stream", openai_head, openai_tokens, openai_tail)

    async def ollama(request: Any) -> Any:
        tail = _ollama_line("", done=True)
        return await _stream(request, "application/x-ndjson", b"", ollama_tokens, tail)

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", openai)
        app.router.add_post("/api/chat", ollama)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        print(f"PORT {port}", flush=True)
        # Serve until the parent closes our stdin.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await runner.cleanup()

    asyncio.run(main())


class BenchServer:
    """The server in a child process, on a free loopback port."""

    def __enter__(self) -> BenchServer:
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line.startswith("PORT "):
            self._process.kill()
            raise RuntimeError("the bench server did not start")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)


# ---------------------------------------------------------------- the two clients


def _request() -> ChatRequest:
    return ChatRequest(
        MODEL, [ChatMessage("user", PROMPT)], GenerationOptions(max_tokens=TOKENS, seed=1)
    )


def _raw_body(api: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": PROMPT}],
        "stream": True,
    }
    if api == "openai":
        body |= {"max_tokens": TOKENS, "seed": 1, "stream_options": {"include_usage": True}}
    else:
        body["options"] = {"num_predict": TOKENS, "seed": 1}
    return body


def _first_content(line: bytes, api: str) -> bool:
    """The minimal parse: does this line carry a non-empty content delta?"""
    if api == "openai":
        if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
            return False
        choices = json.loads(line[6:]).get("choices")
        return bool(choices and choices[0].get("delta", {}).get("content"))
    return bool(line.strip() and json.loads(line).get("message", {}).get("content"))


async def raw_ttft_ns(
    client: httpx.AsyncClient, url: str, api: str, body: dict[str, Any]
) -> tuple[int, int]:
    """(outside stopwatch ns, CPU ns of this process in the same window)."""
    path = "/v1/chat/completions" if api == "openai" else "/api/chat"
    first: int | None = None
    cpu = 0
    start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
    response = await client.send(client.build_request("POST", url + path, json=body), stream=True)
    try:
        buffer = b""
        async for data in response.aiter_bytes():
            if first is not None:
                continue  # read the rest of the reply, as Tachy does
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            if any(_first_content(line, api) for line in lines):
                first, cpu = time.perf_counter_ns(), time.process_time_ns()
    finally:
        await response.aclose()
    if first is None:
        raise RuntimeError("the raw loop saw no token")
    return first - start, cpu - cpu_start


async def tachy_ttft_ns(backend: Any) -> tuple[int, int, float]:
    """(outside stopwatch ns, CPU ns in the same window, ChatStream's own ttft_ms)."""
    first: int | None = None
    cpu = 0
    start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
    async with backend.chat(_request()) as stream:
        async for event in stream:
            if first is None and type(event) is Token and event.kind is TokenKind.ANSWER:
                first, cpu = time.perf_counter_ns(), time.process_time_ns()
    if first is None:
        raise RuntimeError(f"the Tachy stream saw no token: {stream.outcome}")
    ttft = stream.metrics().ttft_ms
    assert ttft is not None
    return first - start, cpu - cpu_start, ttft


# ---------------------------------------------------------------- the run


@dataclass
class Overhead:
    api: str
    raw_ms: list[float] = field(default_factory=list)
    tachy_ms: list[float] = field(default_factory=list)
    tachy_inner_ms: list[float] = field(default_factory=list)  # ChatStream's ttft_ms
    # CPU time of this process from the start to the first token: the work itself,
    # without the waits for a CPU that dominate wall time on a loaded machine.
    raw_cpu_ms: list[float] = field(default_factory=list)
    tachy_cpu_ms: list[float] = field(default_factory=list)

    @property
    def overhead_ms(self) -> float:
        """Tachy's median minus raw's median (the goal: <= 1 ms)."""
        return statistics.median(self.tachy_ms) - statistics.median(self.raw_ms)

    @property
    def paired_overhead_ms(self) -> float:
        """Median of (tachy - raw) over neighbouring pairs: drift cancels out."""
        return statistics.median(t - r for t, r in zip(self.tachy_ms, self.raw_ms, strict=True))

    @property
    def cpu_overhead_ms(self) -> float:
        """Tachy's median CPU to the first token minus raw's."""
        return statistics.median(self.tachy_cpu_ms) - statistics.median(self.raw_cpu_ms)

    @property
    def ratio(self) -> float:
        return statistics.median(self.tachy_ms) / statistics.median(self.raw_ms)

    def noise_ms(self) -> float:
        """Two standard errors of a difference of two medians, from the raw spread:
        SE(median) ~ 1.2533 * sigma / sqrt(n), sigma ~ IQR / 1.349 (robust to the
        outliers a loaded machine produces). About a 95% bound on pure noise."""
        q1, _, q3 = statistics.quantiles(self.raw_ms, n=4)
        sigma = (q3 - q1) / 1.349
        return 2 * math.sqrt(2) * 1.2533 * sigma / math.sqrt(len(self.raw_ms))


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


async def measure(url: str, api: str, n: int, warmup: int = 5) -> Overhead:
    result = Overhead(api)
    body = _raw_body(api)
    async with new_client() as raw_client:  # the same transport settings as Tachy's
        backend = backend_for(url, api)
        try:
            for _ in range(warmup):
                await raw_ttft_ns(raw_client, url, api, body)
                await tachy_ttft_ns(backend)
            for index in range(2 * n):
                # A B A B, then B A B A: neither side always goes first.
                raw_first = (index // 2) % 2 == 0
                if (index % 2 == 0) == raw_first:
                    wall, cpu = await raw_ttft_ns(raw_client, url, api, body)
                    result.raw_ms.append(wall / NS_PER_MS)
                    result.raw_cpu_ms.append(cpu / NS_PER_MS)
                else:
                    wall, cpu, inner = await tachy_ttft_ns(backend)
                    result.tachy_ms.append(wall / NS_PER_MS)
                    result.tachy_cpu_ms.append(cpu / NS_PER_MS)
                    result.tachy_inner_ms.append(inner)
        finally:
            await backend.aclose()
    return result


def run(api: str, n: int, warmup: int = 5) -> Overhead:
    with BenchServer() as server:
        return asyncio.run(measure(server.url, api, n, warmup))


def report(result: Overhead) -> str:
    def row(name: str, values: list[float]) -> str:
        return (
            f"  {name:<22} median {statistics.median(values):7.3f} ms   P95 {p95(values):7.3f} ms"
        )

    return "\n".join(
        [
            f"{result.api}: {len(result.raw_ms)} raw + {len(result.tachy_ms)} Tachy requests, "
            f"interleaved; first token after {FIRST_TOKEN_MS:g} ms",
            row("raw httpx loop", result.raw_ms),
            row("Tachy (stopwatch)", result.tachy_ms),
            row("Tachy (its ttft_ms)", result.tachy_inner_ms),
            row("raw CPU to 1st token", result.raw_cpu_ms),
            row("Tachy CPU to 1st token", result.tachy_cpu_ms),
            f"  overhead (median diff)  {result.overhead_ms:+.3f} ms   "
            f"paired median {result.paired_overhead_ms:+.3f} ms   "
            f"ratio {result.ratio:.4f}   noise (2 SE) {result.noise_ms():.3f} ms   "
            f"goal <= {GOAL_MS:g} ms: {'met' if result.overhead_ms <= GOAL_MS else 'MISSED'}",
            f"  CPU overhead (median diff) {result.cpu_overhead_ms:+.3f} ms",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=60, help="requests per side (>= 30)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--api", choices=["openai", "ollama", "both"], default="both")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve()
        return 0
    missed = False
    for api in ["openai", "ollama"] if args.api == "both" else [args.api]:
        result = run(api, args.n, args.warmup)
        print(report(result), flush=True)
        missed |= result.overhead_ms > GOAL_MS
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
