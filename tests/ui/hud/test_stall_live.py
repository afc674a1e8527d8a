"""A stall mid-answer is a state entered on the timer ("No token for 2 s…"), the live
rate falls while no token comes, and the stall is counted once, whether or not the
stream resumes (the lab scripts the silence)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from client.lab import LabServer, scenario_from_dict
from client.services.chat.turn_state import TurnState
from client.services.hud.hud_live import MIN_GAPS_FOR_MEDIAN
from tests.ui.conftest import until

SILENCE_S = 3.5


@pytest.fixture
def stalling_lab(run: Any) -> Iterator[str]:
    # Three tokens, the silence, two more: it resumes, and the HUD's running median never
    # has enough gaps to judge one (hud_live.MIN_GAPS_FOR_MEDIAN), so only the silence
    # over 2 s is a stall. With more, a busy machine's 50 ms pause in reading the 5 ms
    # tokens (or before the closing line) is one by that median too: 2-5 were counted
    # beside two CPU-bound processes, where this test counts the lab's silence alone.
    dials = {"ttft": 20, "tpot_ms": 5, "output_tokens": MIN_GAPS_FOR_MEDIAN}
    fault = {"kind": "stall", "after_tokens": 3, "seconds": SILENCE_S}
    lab = LabServer(scenario_from_dict({**dials, "fault": fault}))
    url = run(lab.start())
    yield url
    run(lab.stop())


def test_a_stall_is_said_counted_and_the_rate_falls(
    make_app: Any, run: Any, stalling_lab: str
) -> None:
    app = make_app(stalling_lab, model="tachy-lab")
    hud = app.hud
    app.window.hud_dock.setVisible(True)
    hud.tabs.setCurrentWidget(hud.live)
    label = app.window.stage_label

    async def ask() -> None:
        app.page.send("Tell me a story")
        await until(lambda: label.text().startswith("No token for"))
        generation = app.page.runner.generation
        assert generation is not None and generation.state is TurnState.STALLED
        # Counted while it lasts, not when it ends; the rate has fallen to nothing.
        summary = hud.live.summary
        fallen = "0 tokens/s in the last second"
        await until(lambda: fallen in summary.text() and "1 stall" in summary.text())
        assert hud.streaming and hud.stream.stalls == 1
        await until(lambda: not app.page.busy)

    run(ask())
    assert not label.text().startswith("No token for")
    assert hud.stream.stalls == 1  # the resumed stream did not count it twice
    assert hud.stream.stall_ms.view[-1] >= SILENCE_S * 1000 * 0.9


def test_a_stall_that_never_resumes_is_counted(make_app: Any, run: Any, stalling_lab: str) -> None:
    app = make_app(stalling_lab, model="tachy-lab")
    app.page.session.configure(stall_timeout_s=2.5)  # gives up before the lab resumes

    async def ask() -> None:
        app.page.send("Tell me a story")
        await until(lambda: not app.page.busy)

    run(ask())
    assert app.page.runner.generation.finished.outcome.value == "interrupted"
    assert app.hud.stream.stalls == 1
