"""`tachy chat --fast --strong`: the route line, and the fallback in every case where the
chosen model fails before its first token (two scripted servers on loopback)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from client.cli import main
from client.cli.chat import cascade as chat_cascade
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port

PROOF = "Prove that √2 is irrational, step by step"


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _chat(fast: str, strong: str, text: str, *extra: str) -> int:
    return main(["chat", "--fast", fast, "--strong", strong, "--json", *extra, text])


def test_hi_goes_to_the_fast_model(capsys: pytest.CaptureFixture[str]) -> None:
    with (
        LiveServer(Script(tokens=["Hi", "!"], models=["small"])) as fast,
        LiveServer(Script(models=["big"])) as strong,
    ):
        assert _chat(f"{fast.url}#small", f"{strong.url}#big", "hi") == 0
    events = _events(capsys.readouterr().out)
    route = events[0]
    assert route["event"] == "route" and route["route"] == "fast" and route["model"] == "small"
    assert route["reason"] and route["decided_ms"] >= 0
    assert [e["text"] for e in events if e["event"] == "token"] == ["Hi", "!"]
    assert len(fast.requests) == 1 and strong.requests == []
    assert fast.requests[0]["model"] == "small"


def test_a_proof_goes_to_the_strong_model(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(models=["small"])) as fast, LiveServer(Script(models=["big"])) as strong:
        assert _chat(fast.url, strong.url, PROOF) == 0  # no #MODEL: each server's first
    route = _events(capsys.readouterr().out)[0]
    assert (route["route"], route["model"]) == ("strong", "big")
    assert "prove" in route["reason"]
    assert strong.requests[0]["model"] == "big" and fast.requests == []


FAILURES = {
    "503 queue full": Script(status=503, body=b'{"error": {"message": "queue full"}}'),
    "500": Script(status=500, body=b'{"error": {"message": "boom"}}'),
    "unknown model": Script(status=404, body=b'{"error": {"message": "model \'big\' not found"}}'),
    "first-token timeout": Script(api="ollama", hang_after=0),
}


@pytest.mark.parametrize("case", FAILURES)
def test_a_strong_failure_before_the_first_token_falls_back(
    case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        LiveServer(Script(tokens=["fine"], models=["small"])) as fast,
        LiveServer(FAILURES[case]) as strong,
    ):
        extra = ("--first-token-timeout", "0.5", "--stall-timeout", "0.5")
        code = _chat(f"{fast.url}#small", f"{strong.url}#big", PROOF, *extra)
    out, err = capsys.readouterr()
    assert code == 0
    events = _events(out)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "route" and events[0]["route"] == "strong"
    fallback = next(e for e in events if e["event"] == "fallback")
    assert (fallback["from"], fallback["to"]) == ("strong", "fast") and fallback["error"]
    assert "failed" not in kinds  # the strong model's failure is the fallback line
    assert [e["text"] for e in events if e["event"] == "token"] == ["fine"]
    assert kinds.count("metrics") == 1
    assert "answers instead" in err and "Traceback" not in err


def test_a_refused_connection_falls_back(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(tokens=["ok"], models=["small"])) as fast:
        code = _chat(fast.url, f"http://127.0.0.1:{closed_port()}#big", PROOF)
    events = _events(capsys.readouterr().out)
    assert code == 0
    fallback = next(e for e in events if e["event"] == "fallback")
    assert fallback["from"] == "strong" and fallback["to"] == "fast"
    assert [e["text"] for e in events if e["event"] == "token"] == ["ok"]


def test_the_fast_models_failure_falls_back_to_the_strong_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LiveServer(Script(tokens=["strong says hi"], models=["big"])) as strong:
        code = _chat(f"http://127.0.0.1:{closed_port()}#small", strong.url, "hi")
    events = _events(capsys.readouterr().out)
    assert code == 0
    assert events[0]["route"] == "fast"
    assert next(e for e in events if e["event"] == "fallback")["to"] == "strong"


def test_after_tokens_nothing_falls_back_and_the_text_stays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with (
        LiveServer(Script(tokens=["unused"])) as fast,
        LiveServer(Script(tokens=["Half", " an", " answer"], reset_after=2)) as strong,
    ):
        code = _chat(fast.url, strong.url, PROOF)
    events = _events(capsys.readouterr().out)
    assert code == 3  # interrupted, as without a cascade
    assert "fallback" not in [e["event"] for e in events]
    assert [e["text"] for e in events if e["event"] == "token"] == ["Half", " an"]
    assert fast.requests == []


def test_both_failing_says_so_once_and_exits_non_zero(capsys: pytest.CaptureFixture[str]) -> None:
    dead = f"http://127.0.0.1:{closed_port()}#m"
    code = _chat(dead, dead, "hi")
    out, err = capsys.readouterr()
    assert code == 2
    assert [e["event"] for e in _events(out)].count("fallback") == 1
    assert "Traceback" not in err


def test_a_slow_classifier_is_cut_at_its_budget(capsys: pytest.CaptureFixture[str]) -> None:
    with (
        LiveServer(Script(tokens=["strong"], delay_s=1.0, models=["small"])) as fast,
        LiveServer(Script(models=["big"])) as strong,
    ):
        code = _chat(fast.url, strong.url, "hi", "--classify", "--classify-budget-ms", "100")
    route = _events(capsys.readouterr().out)[0]
    assert code == 0
    assert route["route"] == "fast"
    assert "the classifier took over 100 ms" in route["reason"]  # not its answer: cut
    assert route["decided_ms"] >= 100


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fast", "local"], "needs both"),
        (["--fast", "ftp://x#m", "--strong", "local"], "not supported"),
    ],
)
def test_bad_cascade_arguments_are_one_sentence(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["chat", *args, "hi"])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    err = capsys.readouterr().err
    assert code in (1, 2) and message in err and "Traceback" not in err


def test_a_silent_strong_model_falls_back_after_the_cascade_wait_not_the_minute(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_cascade, "FALLBACK_AFTER_S", 0.3)  # stands for its 10 s
    with (
        LiveServer(Script(tokens=["fine"], models=["small"])) as fast,
        LiveServer(Script(api="ollama", hang_after=0)) as strong,
    ):
        code = _chat(f"{fast.url}#small", f"{strong.url}#big", PROOF)  # --first-token-timeout 60
    assert code == 0
    events = _events(capsys.readouterr().out)
    fallback = next(e for e in events if e["event"] == "fallback")
    assert fallback == {
        "event": "fallback",
        "from": "strong",
        "to": "fast",
        "error": "No first token came within 0.3 s.",
    }
    assert [e["text"] for e in events if e["event"] == "token"] == ["fine"]


def test_the_fallback_gets_its_own_wait_and_ttft_counts_from_the_first_request(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The strong model's 2.5 s are spent; the fast one still has its whole 3 s for a
    first token (it takes 1 s, more than the 0.5 s left), and the answer's TTFT includes
    the wait for the strong."""
    monkeypatch.setattr(chat_cascade, "FALLBACK_AFTER_S", 2.5)
    with (
        LiveServer(Script(tokens=["fine"], models=["small"], delay_s=1.0)) as fast,
        LiveServer(Script(api="ollama", hang_after=0)) as strong,
    ):
        extra = ("--first-token-timeout", "3")
        code = _chat(f"{fast.url}#small", f"{strong.url}#big", PROOF, *extra)
    assert code == 0
    events = _events(capsys.readouterr().out)
    assert [e["text"] for e in events if e["event"] == "token"] == ["fine"]
    (metrics,) = [e for e in events if e["event"] == "metrics"]
    assert metrics["ttft_ms"] >= 2500 + 1000
