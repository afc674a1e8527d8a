"""The keep-alive menu drives the real local engine's unload-after-idle, and the model
state says so: "warm · 2 s left", then "cold" once the engine sleeps (its /props says
is_sleeping), and a message wakes it (warm again, with a new deadline)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

import client.ui.servers.server_controller as server_control
from client.backends.engine.local_engine import LocalEngine
from client.core.prediction import ModelState
from client.services.settings.chat_defaults import ChatDefaults
from tests.ui.conftest import last_answer_text, until

pytestmark = pytest.mark.engine

SLEEP_S = 2  # the keep-alive chosen: the engine sleeps after this long idle
# The Settings window's "Longest answer": a sampled answer from the small model can
# ramble to its 2,048-token context, minutes on a busy machine; this test is the wake.
LONGEST_ANSWER = 24


async def _no_servers() -> list[Any]:
    return []  # other servers on this machine must not be chosen over the local engine


def test_keep_alive_makes_the_engine_sleep_and_a_message_wakes_it(
    make_app: Any, run: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_control, "detected_choices", _no_servers)
    engines: list[LocalEngine] = []

    def factory() -> LocalEngine:
        engines.append(LocalEngine())
        return engines[-1]

    app = make_app(None, model=None, api="auto", engine_factory=factory, warm_models=True)
    try:
        _scenario(app, engines, run, qtbot)
    finally:
        for engine in engines:
            engine.stop_sync()


def _scenario(app: Any, engines: list[LocalEngine], run: Any, qtbot: Any) -> None:
    w, link = app.window, app.warming
    label = link.state_label

    async def started() -> None:
        await until(lambda: link.warmer.state is ModelState.WARM, timeout_s=60)

    run(started(), timeout_s=90)
    engine = engines[0]
    assert engine.sleep_idle_s == 1800  # the default keep-alive, 30 min, from its start
    first_pid = engine.pid
    link.set_keep_alive(SLEEP_S)  # the engine restarts with it (no answer under way)

    async def asleep_after_idle() -> None:
        # Restarted and warmed: the deadline is the new one.
        await until(lambda: label.text() in ("warm · 2 s left", "warm · 1 s left"))
        assert engine.pid != first_pid and engine.sleep_idle_s == SLEEP_S
        await until(lambda: label.text() == "cold", timeout_s=SLEEP_S + 5)
        assert await engine.is_sleeping() is True  # the label tells the engine's truth

    run(asleep_after_idle(), timeout_s=60)
    assert "unloads the model after 2 idle" in label.toolTip()
    tachy = app.tachy
    tachy.chat_defaults.save(ChatDefaults(max_tokens=LONGEST_ANSWER), tachy.session)
    w.composer.setPlainText("Say hello.")
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)

    async def woken() -> None:
        await until(lambda: not app.page.busy and app.page.runner.generation is not None, 60)
        await until(lambda: label.text().startswith("warm ·"))
        assert await engine.is_sleeping() is False

    run(woken(), timeout_s=90)
    assert last_answer_text(w.chat_view).strip()
    assert app.page.runner.generation.cold  # the answer waited for the model to load
    assert (app.page.runner.generation.finished.metrics.output_tokens or 0) <= LONGEST_ANSWER
