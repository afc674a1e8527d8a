"""Flow checks: a bundled scenario file against the real window (offscreen), the buttons
pressed as a user presses them, and what the user saw asserted at each step.

The "503, then ok" flow is the tester's five-line scenario (resources/scenarios/
retry-after-503.toml): Send shows the failure with Retry offered and nothing kept,
Retry then shows the whole answer in the same place and no buttons.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.lab import RunningLab, load_scenario, run_in_thread
from tests.ui.conftest import until

SCENARIOS = Path(__file__).resolve().parents[2] / "resources" / "scenarios"
MODEL = "tachy-lab:latest"
# The bundled files with a sequence: each has a flow test below.
FLOW_FILES = (
    "retry-after-503",
    "reset-then-continue",
    "unknown-model",
    "first-byte-timeout",
    "cold-then-warm",
    "stall-then-recovery",
    "fast-down-strong-up",
)


@dataclass(frozen=True)
class Seen:
    """What the user sees after a step: the last answer, the sentence, the buttons."""

    state: str
    text: str
    stage: str
    buttons: tuple[str, ...]
    answers: int  # assistant messages in the conversation


def seen(app: Any) -> Seen:
    w = app.window
    view = w.chat_view
    last = view.message(view.keys()[-1])
    bar = w.outcome_bar
    buttons = tuple(b.text() for b in bar.buttons.values()) if bar.isVisible() else ()
    answers = sum(1 for key in view.keys() if view.message(key).role == "assistant")
    return Seen(last.state, last.text, w.stage_label.text(), buttons, answers)


@pytest.fixture
def lab_playing(request: pytest.FixtureRequest) -> Iterator[RunningLab]:
    running = run_in_thread(load_scenario(SCENARIOS / f"{request.param}.toml"))
    yield running
    running.stop()


async def send_then_press(app: Any, qtbot: Any, button: str) -> list[Seen]:
    """Send a question, see what failed, press `button`, see the complete answer."""
    w = app.window
    w.composer.setPlainText("Why is the sky blue?")
    qtbot.mouseClick(w.send_button, Qt.MouseButton.LeftButton)
    await until(lambda: not app.page.busy and w.outcome_bar.isVisible(), 10)
    first = seen(app)
    qtbot.mouseClick(w.outcome_bar.button(button), Qt.MouseButton.LeftButton)
    await until(lambda: not app.page.busy and seen(app).state == "complete", 10)
    return [first, seen(app)]


@pytest.mark.parametrize("api", ["ollama", "openai"])
@pytest.mark.parametrize("lab_playing", ["retry-after-503"], indirect=True)
def test_503_then_retry_answers(lab_playing, api, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api=api)
    sent, retried = run(send_then_press(app, qtbot, "retry"), 30)
    assert (sent.state, sent.text, sent.buttons, sent.answers) == (
        "failed", "", ("Retry", "Edit question"), 1
    )  # fmt: skip
    assert "(HTTP 503): server busy" in sent.stage
    assert retried.answers == 1 and retried.buttons == () and retried.stage == ""
    assert len(retried.text.split()) >= 32  # the whole 64-token answer (words of the corpus)
    assert lab_playing.server.stats.faults == {"queue_full": 1}
    assert lab_playing.server.stats.completed == 1


@pytest.mark.parametrize("lab_playing", ["reset-then-continue"], indirect=True)
def test_reset_mid_answer_then_continue(lab_playing, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api="ollama")
    cut, continued = run(send_then_press(app, qtbot, "continue"), 30)
    assert (cut.state, cut.buttons, cut.answers) == ("interrupted", ("Continue", "Retry"), 1)
    assert cut.text and "interrupted" in cut.stage
    assert continued.text.startswith(cut.text) and len(continued.text) > len(cut.text)
    assert continued.buttons == () and continued.answers == 1


def _send(app: Any, qtbot: Any, text: str = "Why is the sky blue?") -> None:
    app.window.composer.setPlainText(text)
    qtbot.mouseClick(app.window.send_button, Qt.MouseButton.LeftButton)


@pytest.mark.parametrize("lab_playing", ["unknown-model"], indirect=True)
def test_unknown_model_fails_every_time(lab_playing, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api="ollama")
    steps: list[Seen] = []

    async def send_then_retry() -> None:
        _send(app, qtbot)
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible(), 10)
        steps.append(seen(app))
        qtbot.mouseClick(app.window.outcome_bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: lab_playing.server.stats.requests == 2, 10)
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible(), 10)
        steps.append(seen(app))

    run(send_then_retry(), 30)
    for step in steps:
        assert (step.state, step.text, step.buttons) == ("failed", "", ("Retry", "Edit question"))
        assert f"no model named '{MODEL}'" in step.stage


@pytest.mark.parametrize("lab_playing", ["first-byte-timeout"], indirect=True)
def test_first_byte_timeout_cancel_then_retry(lab_playing, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api="ollama")
    app.page.session.first_token_timeout_s = 0.4
    bar = app.window.outcome_bar
    steps: list[Seen] = []

    async def wait_cancel_retry() -> None:
        _send(app, qtbot)
        await until(lambda: "keep_waiting" in bar.buttons and bar.isVisible(), 5)
        steps.append(seen(app))
        qtbot.mouseClick(bar.button("cancel"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "retry" in bar.buttons, 10)
        steps.append(seen(app))
        qtbot.mouseClick(bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and seen(app).state == "complete", 10)
        steps.append(seen(app))

    run(wait_cancel_retry(), 30)
    waiting, cancelled, retried = steps
    assert waiting.buttons == ("Keep waiting", "Cancel") and waiting.text == ""
    assert cancelled.state in ("failed", "timed_out") and cancelled.text == ""
    assert cancelled.buttons == ("Retry", "Edit question")
    assert "No answer arrived within 0.4 s" in cancelled.stage
    assert retried.buttons == () and retried.text and retried.answers == 1


@pytest.mark.parametrize("lab_playing", ["cold-then-warm"], indirect=True)
def test_cold_then_warm(lab_playing, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api="ollama")
    spans: list[float] = []

    async def ask_twice() -> None:
        loop = asyncio.get_running_loop()
        for question in ("Why is the sky blue?", "And at sunset?"):
            began = loop.time()
            _send(app, qtbot, question)
            await until(lambda: app.page.busy, 5)
            await until(lambda: not app.page.busy, 15)
            spans.append(loop.time() - began)
            assert seen(app).state == "complete" and seen(app).buttons == ()

    run(ask_twice(), 40)
    assert spans[0] >= 2.0 + 0.6 and spans[1] < spans[0] - 1.5, spans


@pytest.mark.parametrize("lab_playing", ["stall-then-recovery"], indirect=True)
def test_stall_then_recovery(lab_playing, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api="ollama")
    app.page.session.stall_timeout_s = 10.0  # patient: the 3 s pause is waited out
    spans: list[float] = []

    async def ask_twice() -> None:
        loop = asyncio.get_running_loop()
        for question in ("Why is the sky blue?", "And at sunset?"):
            began = loop.time()
            _send(app, qtbot, question)
            await until(lambda: app.page.busy, 5)
            await until(lambda: not app.page.busy, 15)
            spans.append(loop.time() - began)
            assert seen(app).state == "complete" and seen(app).buttons == ()

    run(ask_twice(), 40)
    assert spans[0] >= 3.0 and spans[1] < spans[0] - 2.0, spans


@pytest.mark.parametrize("lab_playing", ["fast-down-strong-up"], indirect=True)
def test_fast_model_down_strong_one_up(lab_playing, make_app, run, qtbot) -> None:
    fast = make_app(lab_playing.url, model="lab-fast", api="openai")
    steps: list[Seen] = []

    async def ask_fast() -> None:
        _send(fast, qtbot)
        await until(lambda: not fast.page.busy and fast.window.outcome_bar.isVisible(), 10)
        steps.append(seen(fast))

    run(ask_fast(), 20)
    assert (steps[0].state, steps[0].text) == ("failed", "")
    assert "(HTTP 503): model lab-fast is down" in steps[0].stage
    strong = make_app(lab_playing.url, model="lab-strong", api="openai")

    async def ask_strong() -> None:
        _send(strong, qtbot)
        await until(lambda: not strong.page.busy and seen(strong).state == "complete", 10)
        steps.append(seen(strong))

    run(ask_strong(), 20)
    assert steps[1].text and steps[1].buttons == ()


def test_every_bundled_flow_is_checked_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    checked = {name for name in FLOW_FILES if f'["{name}"], indirect=True' in source}
    flows = {
        p.stem for p in SCENARIOS.glob("*.toml") if any(s.steps for s in load_scenario(p).served())
    }
    assert flows == checked == set(FLOW_FILES)
