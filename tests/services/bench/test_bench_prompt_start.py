"""`tachy bench --cold`: every request starts with its own word, so a server's prompt
cache gives the warm requests no more than the first one after a restart or warm-up."""

from __future__ import annotations

import itertools
from typing import Any

from client.backends import OpenAICompatBackend
from client.services.bench.runner import START_WORDS, BenchSettings, run_bench
from tests.services.warming.test_warming import MODEL, make_server

__all__ = ["make_server"]  # the fixture, shared with test_warming


def sent(server: Any) -> list[str]:
    return [(r.body or {})["messages"][0]["content"] for r in server.posts("/v1/chat/completions")]


async def test_cold_runs_start_every_message_with_a_new_word(make_server: Any) -> None:
    server = await make_server("openai", loaded=True)
    backend = OpenAICompatBackend(server.url)
    settings = BenchSettings(model=MODEL, prompt="Tell me about the sea.", n=3, cold=True)
    report = await run_bench(backend, settings)
    await backend.aclose()
    assert [r.cold for r in report.results] == [True, False, False, False]
    messages = sent(server)
    assert messages == [f"{word}: Tell me about the sea." for word in START_WORDS[:4]]
    firsts = [m.split()[0] for m in messages]
    assert all(a != b for a, b in itertools.pairwise(firsts))


async def test_warm_runs_repeat_the_prompt_unless_asked(make_server: Any) -> None:
    server = await make_server("openai", loaded=True)
    backend = OpenAICompatBackend(server.url)
    await run_bench(backend, BenchSettings(model=MODEL, prompt="Hi there.", n=2, warmup=1))
    assert sent(server) == ["Hi there."] * 3
    settings = BenchSettings(model=MODEL, prompt="Hi there.", n=2, warmup=1, vary_start=True)
    await run_bench(backend, settings)
    await backend.aclose()
    assert sent(server)[3:] == [f"{w}: Hi there." for w in START_WORDS[1:4]]


def test_start_words_never_repeat_back_to_back() -> None:
    settings = BenchSettings(model=MODEL, cold=True)
    firsts = [settings.message(i).split()[0] for i in range(len(START_WORDS) * 2 + 3)]
    assert all(a != b for a, b in itertools.pairwise(firsts))
    assert len({w[0] for w in START_WORDS}) == len(START_WORDS)  # even the first letters
