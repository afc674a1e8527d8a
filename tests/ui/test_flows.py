"""Flow checks: a bundled scenario file against the real window (offscreen), the buttons
pressed as a user presses them, and what the user saw asserted at each step.

The "503, then ok" flow is the tester's five-line scenario (resources/scenarios/
retry-after-503.toml): Send shows the failure with Retry offered and nothing kept,
Retry then shows the whole answer in the same place and no buttons.
"""

from __future__ import annotations

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


@pytest.mark.parametrize("api", ["ollama", "openai"])
@pytest.mark.parametrize("lab_playing", ["retry-after-503"], indirect=True)
def test_503_then_retry_answers(lab_playing, api, make_app, run, qtbot) -> None:
    app = make_app(lab_playing.url, model=MODEL, api=api)
    w = app.window
    steps: list[Seen] = []

    async def send_then_retry() -> None:
        w.composer.setPlainText("Why is the sky blue?")
        qtbot.mouseClick(w.send_button, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and w.outcome_bar.isVisible(), 10)
        steps.append(seen(app))
        qtbot.mouseClick(w.outcome_bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and seen(app).state == "complete", 10)
        steps.append(seen(app))

    run(send_then_retry(), 30)
    sent, retried = steps
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
    w = app.window
    steps: list[Seen] = []

    async def send_then_continue() -> None:
        w.composer.setPlainText("Why is the sky blue?")
        qtbot.mouseClick(w.send_button, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and w.outcome_bar.isVisible(), 10)
        steps.append(seen(app))
        qtbot.mouseClick(w.outcome_bar.button("continue"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and seen(app).state == "complete", 10)
        steps.append(seen(app))

    run(send_then_continue(), 30)
    cut, continued = steps
    assert (cut.state, cut.buttons, cut.answers) == ("interrupted", ("Continue", "Retry"), 1)
    assert cut.text and "interrupted" in cut.stage
    assert continued.text.startswith(cut.text) and len(continued.text) > len(cut.text)
    assert continued.buttons == () and continued.answers == 1
