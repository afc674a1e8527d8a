"""`tachy chat` and `tachy models` against the real local engine."""

from __future__ import annotations

import json

import pytest

from client.backends.engine.local_engine import LOCAL_MODEL_NAME, LocalEngine
from client.cli import main

pytestmark = pytest.mark.engine


def test_chat_streams_the_engines_answer(
    local_engine: LocalEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "chat",
        "--url",
        local_engine.url,
        "--max-tokens",
        "12",
        "--seed",
        "1",
        "--temperature",
        "0",
        "--json",
        "Say hello.",
    ]
    assert main(args) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    tokens = [line["text"] for line in lines if line["event"] == "token"]
    done = next(line for line in lines if line["event"] == "done")
    metrics = lines[-1]
    assert tokens and all(tokens) and "".join(tokens) == done["text"]
    assert done["reason"] in ("stop", "length")
    # the role-only first chunk is not the first token: ttft is after the headers
    assert metrics["headers_ms"] <= metrics["ttft_ms"] <= metrics["e2el_ms"]
    # llama-server counts the tokens itself (a stop token is counted, never sent)
    assert metrics["output_tokens"] >= len(tokens)
    assert metrics["output_tokens_estimated"] is False


def test_models_lists_the_engines_model(
    local_engine: LocalEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "--url", local_engine.url]) == 0
    assert LOCAL_MODEL_NAME in capsys.readouterr().out
