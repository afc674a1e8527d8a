"""Warming, the model's state, the TTFT prediction and the budget cut, in the window.

The app runs offscreen against the latency lab in-process (Ollama API) with a
cold-start scenario whose load takes LOAD_MS.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication

from client.core.timeline import now_ns
from client.lab.scenarios.scenario import Distribution, load_scenario
from client.lab.server import LabServer
from client.services.storage.stores import open_stores
from client.services.warming.warming_policy import KEEP_ALIVE_KEY
from client.ui.shell.app import TachyApp
from client.ui.warming.warming_controller import CUT_MARKER
from tests.ui.conftest import LoopRunner, NoEngine, until

MODEL = "tachy-lab:latest"
LOAD_MS = 1500.0


def lab_scenario(load_ms: float = LOAD_MS) -> Any:
    cold = load_scenario("cold-start")
    return replace(
        cold,
        load_ms=load_ms,
        ttft=Distribution("fixed", 40.0),
        tpot_ms=2.0,
        jitter_ms=0.0,
        output_tokens=6,
    )


@pytest.fixture
def lab(run: LoopRunner) -> Iterator[LabServer]:
    server = LabServer(lab_scenario())
    run(server.start())
    yield server
    run(server.stop())


@pytest.fixture
def warm_app(
    qtbot: Any, run: LoopRunner, data_dir: Path, lab: LabServer
) -> Iterator[Callable[[], Coroutine[Any, Any, TachyApp]]]:
    """make() -> the app, started against the lab. Each test runs its body in one
    run(): a warm-up spans the start and what follows, and must not see the loop stop."""
    apps: list[TachyApp] = []

    async def make(api: str = "ollama", start: bool = True) -> TachyApp:
        stores = open_stores(data_dir / "tachy.sqlite3")
        settings = QSettings(str(data_dir / "window.ini"), QSettings.Format.IniFormat)
        app = TachyApp(stores, settings, engine_factory=NoEngine, warm_models=True)
        apps.append(app)
        app.window.show()
        if start:
            await app.start(lab.url, api, MODEL)
        return app

    yield make
    for app in apps:
        run(app.aclose())
        app.stores.close()
        app.window.close()
        app.window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def label_history(app: TachyApp) -> list[str]:
    """Every text the model-state label shows from now on."""
    link = app.warming
    assert link is not None
    seen: list[str] = []
    link.warmer.add_listener(lambda _: seen.append(link.state_label.text()))
    return seen


def send(app: TachyApp, text: str) -> None:
    app.window.composer.setPlainText(text)
    app.window.composer.submit()


def answered(app: TachyApp, count: int) -> Callable[[], bool]:
    view = app.window.chat_view

    def done() -> bool:
        roles = [view.message(k) for k in view.keys() if view.message(k).role == "assistant"]
        return len(roles) >= count and roles[-1].state == "complete" and not app.page.busy

    return done


def test_warms_at_start_and_shows_time_left(warm_app, run, lab):
    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text().startswith("warm"))
        # One load request (an empty chat with the keep-alive) went out at start.
        assert link.warmer.warm_requests == 1
        loaded = lab.state.models.running(asyncio.get_running_loop().time())
        assert [m.name for m in loaded] == [MODEL]  # the lab loaded it for us
        assert lab.stats.requests == 0  # and no user request was needed
        text = link.state_label.text()
        assert text.startswith("warm · ") and text.endswith("min left"), text
        assert "keep-alive 30m" in link.state_label.toolTip()
        session = app.page.session
        assert session.settings.keep_alive == "30m"
        assert session.model_state_provider() == "warm"
        await until(lambda: session.settings.prompt_budget is not None)  # /api/show's context
        # The keep-alive menu in the server bar: stored, sent, and explained.
        let_go = link.keep_alive_actions[-1]
        assert let_go.text() == "Let the server unload it"
        let_go.trigger()
        assert app.stores.settings.get(KEEP_ALIVE_KEY, "unset") is None
        assert session.settings.keep_alive is None
        assert "lets the server unload it" in link.state_label.toolTip()

    run(body())


def test_state_goes_cold_then_typing_warms_it_again(warm_app, run, data_dir: Path, qtbot):
    open_stores(data_dir / "tachy.sqlite3").settings.set(KEEP_ALIVE_KEY, "1s")

    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        assert link.warmer.settings.keep_alive == "1s"  # the model unloads 1 s after use
        seen = label_history(app)
        await until(lambda: link.state_label.text() == "cold")
        assert any(t.startswith("warm · ") and t.endswith("s left") for t in seen), seen
        before = link.warmer.warm_requests
        seen.clear()
        app.window.composer.setFocus()
        qtbot.keyClicks(app.window.composer, "Hel")  # the user starts typing
        await until(lambda: link.warmer.warm_requests > before)
        await until(lambda: link.state_label.text().startswith("warm"))
        assert seen[0] == "loading…", seen
        assert seen[-1].startswith("warm · "), seen

    run(body())


def test_message_sent_during_warm_up_goes_out_at_once(warm_app, run, lab):
    lab.set_scenario(lab_scenario(2500.0))  # room for the stage line's 1 s rule

    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text() == "loading…")
        sent_ns = now_ns()
        send(app, "Is the model loaded yet?")
        generation = app.page.runner.generation
        await until(lambda: generation.timeline.request_written_ns is not None)
        written_ms = (generation.timeline.request_written_ns - sent_ns) / 1e6
        assert written_ms < 2500, written_ms  # before the warm-up's 2.5 s load ended
        # It waits for the load the warm-up began, and the stage line says so.
        loading = "Loading the model…"
        await until(lambda: app.window.stage_label.text().startswith(loading))
        await until(answered(app, 1))
        assert generation.cold
        assert generation.timeline.stages[0].name == "loading"
        assert link.state_label.text().startswith("warm")

    run(body())


def test_a_question_sent_before_the_server_answered_says_the_model_loads(warm_app, run, lab):
    """The first minute: the question goes out the moment the server is known, before
    the app-start warm-up could ask /api/ps; that answer still tells the stage line."""
    lab.set_scenario(lab_scenario(2500.0))  # room for the stage line's 1 s rule

    async def body() -> None:
        app = await warm_app(start=False)
        send(app, "Is the model loaded yet?")
        assert app.page.session is None  # waiting for the server
        await app.start(lab.url, "ollama", MODEL)
        generation = app.page.runner.generation
        assert generation is not None
        loading = "Loading the model…"
        await until(lambda: app.window.stage_label.text().startswith(loading))
        await until(answered(app, 1))
        assert generation.cold
        assert [s.name for s in generation.timeline.stages] == ["loading", "answering"]
        assert app.warming is not None
        assert app.warming.warmer.warm_requests == 0  # it asked /api/ps and loaded nothing

    run(body())


def test_the_hud_marks_a_reply_that_waited_for_a_load_as_a_cold_start(warm_app, run, lab):
    """Over the OpenAI API no load_duration comes back: only the loading stage knew."""
    lab.set_scenario(lab_scenario(2500.0))

    async def body() -> None:
        app = await warm_app(api="openai")
        link = app.warming
        assert link is not None and app.hud is not None
        await until(lambda: link.state_label.text() == "loading…")
        send(app, "Is the model loaded yet?")
        generation = app.page.runner.generation
        await until(answered(app, 1))
        assert generation.cold and generation.timeline.stages[0].name == "loading"
        assert not generation.finished.metrics.server.get("ollama")
        [record] = app.hud.book.records
        assert record.cold  # the requests view draws it as a cold start

    run(body())


def test_composer_shows_the_predicted_wait_while_typing(warm_app, run, lab, qtbot):
    lab.set_scenario(lab_scenario(200.0))  # a short first load

    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text().startswith("warm"))
        send(app, "First question, so the prediction has a measurement.")
        await until(answered(app, 1))
        assert link.policy.predictor.predict(10) is not None
        label = link.prediction_label
        assert label.text() == ""
        composer = app.window.composer
        composer.setFocus()
        qtbot.keyClicks(composer, "Why")
        assert label.text().startswith("≈ ") and label.text().endswith("to first token")
        short = link.policy.draft
        qtbot.keyClicks(composer, " is the sky blue" * 40)
        longer = link.policy.draft
        assert short is not None and longer is not None and longer.tokens > short.tokens
        assert label.text().startswith("≈ ")
        composer.clear()
        assert label.text() == ""
        # The prediction shown when it was sent is scored against the first token.
        qtbot.keyClicks(composer, "And the sunset?")
        composer.submit()
        await until(answered(app, 2))
        assert link.policy.predictor.error_count == 1
        assert "median error" in link.prediction_note
        assert app.hud is not None
        assert "median error" in app.hud.requests.table.horizontalHeaderItem(0).toolTip()

    run(body())


def test_cut_marker_appears_with_a_tiny_budget(warm_app, run, lab):
    lab.set_scenario(lab_scenario(200.0))  # a short first load

    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        await until(lambda: app.page.session.settings.prompt_budget is not None)
        link.set_budget_setting(60)
        assert app.page.session.settings.prompt_budget == 60
        question = "Tell me about the weather on the coast in late autumn, please. " * 3
        send(app, question)
        await until(answered(app, 1))
        view = app.window.chat_view
        assert CUT_MARKER not in view.toPlainText()
        send(app, "And in spring? " + question)
        await until(answered(app, 2))
        generation = app.page.runner.generation
        assert CUT_MARKER in view.toPlainText()
        cut = view.cut_marked_before()
        assert cut is not None and view.message(cut).text.startswith("And in spring?")
        before = view.keys()[view.keys().index(cut) - 1]
        assert view.message(before).role == "assistant"
        assert generation.fitted is not None and generation.fitted.was_cut
        assert generation.cut_before_message_id == cut

    run(body())


def test_prediction_is_there_from_the_first_keystroke_after_a_restart(warm_app, run, lab, qtbot):
    """What the predictor learned is kept per server and model in the settings
    table: the next session predicts the first draft before any request."""
    lab.set_scenario(lab_scenario(200.0))  # a short first load

    async def body() -> None:
        first = await warm_app()
        link = first.warming
        assert link is not None
        send(first, "First question, so the prediction has a measurement.")
        await until(answered(first, 1))
        learned = link.policy.predictor.learned()
        assert learned["warm"]
        await first.aclose()  # saves what is not saved yet
        first.window.close()
        keys = [k for k in first.stores.settings.all() if k.startswith("ttft_learned ")]
        assert keys == [f"ttft_learned {lab.url} {MODEL}"]

        second = await warm_app()
        link = second.warming
        assert link is not None and link.policy.predictor.learned()["warm"] == learned["warm"]
        composer = second.window.composer
        composer.setFocus()
        qtbot.keyClicks(composer, "Why")
        label = link.prediction_label
        assert label.text().startswith("≈ ") and label.text().endswith("to first token")
        # Another model has its own predictor, and nothing learned yet.
        second.window.server_bar.modelChosen.emit("another-model:latest")  # as the picker
        assert link.policy.predictor.predict(10) is None
        assert "not measured yet" in link.prediction_note
        second.window.server_bar.modelChosen.emit(MODEL)
        assert link.policy.predictor.predict(10) is not None

    run(body())


def test_a_server_restarted_cold_is_shown_cold_and_its_load_as_loading(warm_app, run, lab):
    """The warmer said "warm · 30 min left"; the server restarted and lost its model.
    The next question finds it cold: the state reads "loading…" (not still warm) and
    the wait is the model's load, not "Reading your question"."""

    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text().startswith("warm · "))
        port = int(lab.url.rsplit(":", 1)[1])
        await lab.stop()
        restarted = LabServer(lab_scenario(2500.0))  # the same server, its memory empty
        await restarted.start("127.0.0.1", port)
        try:
            seen = label_history(app)
            send(app, "Still there?")
            generation = app.page.runner.generation
            await until(lambda: link.state_label.text() == "loading…")
            loading = "Loading the model…"
            await until(lambda: app.window.stage_label.text().startswith(loading))
            await until(answered(app, 1))
            assert generation.cold
            assert generation.timeline.stages[0].name == "loading"
            await until(lambda: link.state_label.text().startswith("warm · "))
            assert seen[0] == "loading…", seen
        finally:
            await restarted.stop()

    run(body())
