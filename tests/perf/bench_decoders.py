"""Decoder throughput: chunks per second of CPU time on one core.

    python -m tests.perf.bench_decoders [-n 200000]

Streams of realistic chunks are decoded to events in this process, timed with
time.process_time (CPU time of this process, so other load on the machine does not
count; the decoders are single-threaded pure code, so this is one core):
  - OpenAI SSE: vLLM-shaped ``chat.completion.chunk`` events (id, created, model,
    choices[0].delta.content, logprobs, finish_reason), a role-only first chunk,
    a finish chunk, a usage chunk and ``data: [DONE]``; words are mixed ASCII,
    accented, Chinese and emoji;
  - Ollama NDJSON: ``/api/chat`` lines with message.content and a final done line.
Each is fed two ways: one chunk per read (what a token-by-token server sends; the
harder case and the one the goal is about) and 64 KiB reads (a burst). Every run
checks that all token texts come out. Goal: >= 50,000 SSE chunks/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from client.backends.apis.ollama.decoder import OllamaDecoder
from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.core.events import Done, Token

GOAL_CHUNKS_PER_S = 50_000
MODEL = "Qwen/Qwen2.5-7B-Instruct"
WORDS = [" the", " latency", ",", " café", " 你好", " 🚀", " model", " is", "\n", " fast", "."]
BURST_BYTES = 65536


def openai_stream(n: int) -> list[bytes]:
    """n token chunks (plus role, finish, usage and [DONE]), one bytes per event."""

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        chunk = {
            "id": "chatcmpl-8c1f0d3e9a2b4c5d",
            "object": "chat.completion.chunk",
            "created": 1_733_190_000,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    usage = {"prompt_tokens": 42, "completion_tokens": n, "total_tokens": 42 + n}
    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": WORDS[i % len(WORDS)]}) for i in range(n)]
    events.append(event({}, "stop"))
    usage_chunk = {"id": "chatcmpl-8c1f0d3e9a2b4c5d", "model": MODEL, "choices": []}
    events.append(b"data: " + json.dumps(usage_chunk | {"usage": usage}).encode() + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    return events


def ollama_stream(n: int) -> list[bytes]:
    def line(content: str, done: bool = False) -> bytes:
        obj: dict[str, Any] = {
            "model": "llama3.2:3b",
            "created_at": "2024-12-03T00:00:00.123456789Z",
            "message": {"role": "assistant", "content": content},
            "done": done,
        }
        if done:
            obj |= {
                "done_reason": "stop",
                "total_duration": 5_123_456_789,
                "load_duration": 12_345_678,
                "prompt_eval_count": 42,
                "prompt_eval_duration": 123_456_789,
                "eval_count": n,
                "eval_duration": 4_987_654_321,
            }
        return json.dumps(obj, ensure_ascii=False).encode() + b"\n"

    return [line(WORDS[i % len(WORDS)]) for i in range(n)] + [line("", done=True)]


def in_bursts(events: list[bytes], size: int = BURST_BYTES) -> list[bytes]:
    data = b"".join(events)
    return [data[i : i + size] for i in range(0, len(data), size)]


@dataclass
class Throughput:
    name: str
    chunks: int
    cpu_s: float

    @property
    def per_s(self) -> float:
        return self.chunks / self.cpu_s


def decode_all(make: Callable[[], Any], reads: list[bytes], tokens: int) -> float:
    """Feed every read to a fresh decoder; return the CPU seconds it took."""
    decoder = make()
    start = time.process_time()
    seen = 0
    done = False
    for data in reads:
        for event in decoder.feed(data):
            if type(event) is Token:
                seen += 1
            elif type(event) is Done:
                done = True
    decoder.close()
    cpu = time.process_time() - start
    if seen != tokens or not done:
        raise AssertionError(f"decoded {seen} of {tokens} tokens, done={done}")
    return cpu


def measure(n: int, repeats: int = 3) -> list[Throughput]:
    """Median of `repeats` runs for each decoder and read pattern."""
    cases = {
        "SSE, one chunk per read": (OpenAIStreamDecoder, openai_stream(n)),
        "SSE, 64 KiB reads": (OpenAIStreamDecoder, in_bursts(openai_stream(n))),
        "NDJSON, one chunk per read": (OllamaDecoder, ollama_stream(n)),
        "NDJSON, 64 KiB reads": (OllamaDecoder, in_bursts(ollama_stream(n))),
    }
    results = []
    for name, (make, reads) in cases.items():
        cpu = statistics.median(decode_all(make, reads, n) for _ in range(repeats))
        results.append(Throughput(name, n, cpu))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200_000, help="token chunks per stream")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    results = measure(args.n, args.repeats)
    for result in results:
        print(
            f"{result.name:<28} {result.per_s:>10,.0f} chunks/s of CPU "
            f"({result.chunks:,} chunks in {result.cpu_s:.3f} s, median of {args.repeats})"
        )
    sse = results[0].per_s
    verdict = "met" if sse >= GOAL_CHUNKS_PER_S else "MISSED"
    print(f"goal: SSE >= {GOAL_CHUNKS_PER_S:,} chunks/s, one chunk per read: {verdict}")
    return 0 if sse >= GOAL_CHUNKS_PER_S else 1


if __name__ == "__main__":
    sys.exit(main())
