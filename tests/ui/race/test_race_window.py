"""The race window, in the real app against the lab: the demo race streams two columns
with their figures and marks, the HUD's Race tab shows them together, the chat shows the
race as one turn with a version per column; Stop stops every column (the lab sees each
client leave); the Race… dialog picks 2 to 4 routes."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from client.lab import LabServer, scenario_from_dict
from client.services.chat import turn_store as turns
from client.services.chat.session_events import Outcome
from client.services.images.preparation import prepare_image
from client.services.race.race_routes import RoutePick
from client.services.servers.servers import ServerChoice
from client.ui.race.race_dialog import RaceDialog
from tests.backends.test_live_http import closed_port
from tests.ui.conftest import until

ENDLESS = {
    "seed": 5,
    "output_tokens": 5000,
    "models": {"lab-a": {"ttft": 5, "tpot_ms": 30}, "lab-b": {"ttft": 40, "tpot_ms": 30}},
}


def _demo_action(app: Any, name: str) -> QAction:
    menu = app.window.menuBar().findChild(QMenu, "demoRaces")
    assert menu is not None and menu.title() == "Demo races"
    found = [a for a in menu.actions() if a.objectName() == name]
    assert len(found) == 1, name
    return found[0]


def test_the_lab_demo_race_streams_two_columns_with_their_marks(make_app, server, run) -> None:
    app = make_app(server.url)
    app.window.composer.setPlainText("Why is the sky blue?")
    _demo_action(app, "raceLabFastStrong").trigger()
    window, controller = app.race.race_window, app.race.controller

    async def raced() -> None:
        await until(lambda: controller.race is not None and controller.task is not None)
        await until(lambda: controller.task.done())

    run(raced())
    race = controller.race
    columns = window.columns.columns
    assert window.isVisible() and len(columns) == 2
    assert [c.title.text() for c in columns] == ["Lab, fast model", "Lab, strong model"]
    assert window.columns.question.text() == "Why is the sky blue?"
    assert app.window.composer.toPlainText() == ""  # the demo race took the composer's text
    assert all(c.text for c in columns)
    assert [c.text for c in columns] == [col.text for col in race.columns]
    # The fast model (fast tier) beats the strong one (typing tier) to both marks.
    assert race.first_token == 0 and race.first_finish == 0
    assert "first token" in columns[0].marks.text() and "first to finish" in columns[0].marks.text()
    assert columns[1].marks.text() == ""
    assert "TTFT" in columns[0].figures.text() and "tokens/s" in columns[0].figures.text()
    assert "finished at" in columns[1].figures.text()
    assert window.columns.status.text() == "Finished."
    assert not window.columns.stop_button.isEnabled()
    # The HUD shows the columns' figures together.
    table = app.hud.race.table
    assert app.hud.tabs.currentWidget() is app.hud.race and table.rowCount() == 2
    assert [table.item(r, 0).text() for r in range(2)] == ["Lab, fast model", "Lab, strong model"]
    assert table.item(0, 5).text() == "first token, first to finish"
    # The chat shows the race as one turn: the first to finish, version 1 of 2.
    assert app.page.conversation_id == race.conversation_id
    view = app.window.chat_view
    shown = [view.message(k) for k in view.keys()]
    assert [m.role for m in shown] == ["user", "assistant"]
    assert shown[-1].text == race.columns[0].text and shown[-1].version == (1, 2)


def test_the_qoe_demo_race_shows_equal_rates_and_different_qoe(make_app, server, run) -> None:
    """Steady against bursty: the same TTFT and tokens/s, told apart by QoE (12 s each)."""
    app = make_app(server.url)
    _demo_action(app, "raceLabSteadyBursty").trigger()
    window, controller = app.race.race_window, app.race.controller

    async def raced() -> None:
        await until(lambda: controller.race is not None and controller.task is not None)
        await until(lambda: controller.task.done(), timeout_s=60)

    run(raced())
    columns = window.columns.columns
    assert [c.title.text() for c in columns] == ["Lab, steady answer", "Lab, bursty answer"]
    steady, bursty = (c.figures.text() for c in columns)
    assert "6.0 tokens/s" in steady and "6.0 tokens/s" in bursty, (steady, bursty)
    assert "QoE 1.00" in steady and "QoE 0.8" in bursty, (steady, bursty)
    table = app.hud.race.table  # side by side in the HUD too
    assert table.item(0, 6).text() == "1.00" and table.item(1, 6).text().startswith("0.8")


def test_stop_stops_every_column_and_the_lab_sees_each_leave(make_app, server, run) -> None:
    app = make_app(server.url)
    lab = LabServer(scenario_from_dict(ENDLESS))
    url = run(lab.start())
    choice = ServerChoice("lab", url, "openai")
    picks = [RoutePick(choice, "lab-a"), RoutePick(choice, "lab-b")]
    controller = app.race.controller
    try:
        app.race.start(picks, "Tell me everything.")
        columns = app.race.race_window.columns

        async def streaming() -> None:
            await until(lambda: len(columns.columns) == 2 and all(c.text for c in columns.columns))

        run(streaming())
        # The HUD follows the columns while they stream, not only at the end.
        table = app.hud.race.table
        run(until(lambda: table.rowCount() == 2 and table.item(1, 1).text() != "–"))
        assert table.item(0, 4).text() == "–"  # neither has finished
        assert columns.stop_button.isEnabled()
        columns.stop_button.click()
        run(until(lambda: not controller.busy))
        run(until(lambda: lab.stats.disconnected == 2))
        assert lab.stats.completed == 0
        race = controller.race
        assert [c.finished.outcome for c in race.columns] == [Outcome.STOPPED] * 2
        assert columns.status.text() == "Stopped."
        # Issue 39, item 9: a stopped column never finished, so none is first to finish.
        assert race.first_finish is None
        assert all("first to finish" not in c.marks.text() for c in columns.columns)
        assert all("first to finish" not in table.item(r, 5).text() for r in range(2))
        assert all("stopped at" in c.figures.text() for c in columns.columns)
        assert all(table.item(r, 4).text().startswith("stopped at") for r in range(2))
        stored = [app.stores.history.get_message(c.finished.message_id) for c in race.columns]
        assert [m.state.value for m in stored] == ["stopped", "stopped"]
    finally:
        run(lab.stop())


def test_the_dialog_picks_two_to_four_routes(qtbot: Any, run) -> None:
    choices = [
        ServerChoice("Ollama", "http://127.0.0.1:11434", "ollama"),
        ServerChoice("Local model", "http://127.0.0.1:0", "openai", is_local=True),
    ]

    async def models_of(choice: ServerChoice) -> list[str]:
        return ["llama3.2", "qwen2.5"] if choice.api == "ollama" else ["smollm2"]

    dialog = RaceDialog(choices, models_of, "hi")
    qtbot.addWidget(dialog)

    async def filled() -> None:
        await until(lambda: all(row.model.count() for row in dialog.rows))

    run(filled())
    assert len(dialog.rows) == 2 and not dialog.remove_button.isEnabled()
    first, second = dialog.rows
    assert first.model.currentText() == "llama3.2" and second.model.currentText() == "smollm2"
    assert not first.speculation.isEnabled() and second.speculation.isEnabled()
    second.speculation.setChecked(True)
    first.keep_alive.setText("10m")
    first.cascade.setChecked(True)
    dialog.add_row()
    dialog.add_row()
    assert len(dialog.rows) == 4 and not dialog.add_button.isEnabled()
    dialog.add_row()
    assert len(dialog.rows) == 4
    dialog.remove_row()
    dialog.remove_row()
    picks = dialog.picks()
    assert [p.choice.name for p in picks] == ["Ollama", "Local model"]
    assert picks[0].keep_alive == "10m" and picks[0].cascade and not picks[0].speculation
    assert picks[1].speculation and picks[1].model == "smollm2"
    assert dialog.race_button.isEnabled()
    dialog.question.setText("  ")
    assert not dialog.race_button.isEnabled()


def test_a_column_whose_server_is_down_says_why_and_the_other_wins(make_app, server, run) -> None:
    app = make_app(server.url)
    lab = LabServer(scenario_from_dict({"ttft": 5, "tpot_ms": 5, "output_tokens": 10}))
    url = run(lab.start())
    down = ServerChoice("down", f"http://127.0.0.1:{closed_port()}", "openai")
    picks = [RoutePick(down, "nothing"), RoutePick(ServerChoice("lab", url, "openai"), "tachy-lab")]
    controller = app.race.controller
    try:
        app.race.start(picks, "hi")
        run(until(lambda: controller.race is not None and controller.task is not None))
        run(until(lambda: controller.task.done()))
        failed, answered = app.race.race_window.columns.columns
        assert failed.problem.isVisible() and "Can't reach the server" in failed.problem.text()
        # Issue 39, item 9: a failed column no longer says it waits for a token.
        assert "Waiting" not in failed.answer.placeholderText()
        assert "failed at" in failed.figures.text()
        assert failed.text == "" and not answered.problem.isVisible() and answered.text
        race = controller.race
        assert race.columns[0].finished.outcome is Outcome.UNREACHABLE
        assert race.first_token == 1 and race.first_finish == 1
    finally:
        run(lab.stop())


def test_a_race_asked_from_the_composer_takes_its_text(make_app, run) -> None:
    lab = LabServer(scenario_from_dict({"ttft": 5, "tpot_ms": 5, "output_tokens": 5}))
    url = run(lab.start())
    try:
        app = make_app(url, api="openai", model="tachy-lab")
        app.window.composer.setPlainText("Why is the sky blue?")
        app.race.open_dialog()
        dialog = app.race.dialog
        assert dialog is not None and dialog.question_text() == "Why is the sky blue?"
        lab_index = next(i for i, c in enumerate(dialog.choices) if c.url.rstrip("/") == url)
        for row in dialog.rows:
            row.server.setCurrentIndex(lab_index)
        run(until(lambda: all(row.model.count() for row in dialog.rows)))
        for row in dialog.rows:
            row.model.setEditText("tachy-lab")
        assert app.window.composer.toPlainText() == "Why is the sky blue?"  # not yet raced
        dialog.race_button.click()
        controller = app.race.controller
        run(until(lambda: controller.race is not None and controller.task is not None))
        run(until(lambda: controller.task.done()))
        assert app.window.composer.toPlainText() == ""  # the question went out
        race = controller.race
        stored = app.stores.history.get_message(race.columns[0].finished.message_id)
        assert stored is not None and stored.parent_id is not None
        question = app.stores.history.get_message(stored.parent_id)
        assert question is not None and question.content == "Why is the sky blue?"
    finally:
        run(lab.stop())


def test_the_lab_demo_race_answers_after_an_image_earlier_in_the_conversation(
    make_app, server, run
) -> None:
    """Issue 39, item 2: the race's question has no image, so its text-only columns
    answer with a note where the earlier image was, as a normal turn would."""
    app = make_app(server.url)
    history = app.tachy.stores.history
    turn = turns.ask(history, None, "what is this?", None, turns.Origin("Lab", "seer"), [_photo()])
    history.append_text(turn.assistant_message_id, "A green field.")
    app.page.show_conversation(turn.conversation_id)
    app.window.composer.setPlainText("And why is it green?")
    _demo_action(app, "raceLabFastStrong").trigger()
    controller = app.race.controller
    run(until(lambda: controller.race is not None and controller.task is not None))
    run(until(lambda: controller.task.done()))
    race = controller.race
    assert race.conversation_id == turn.conversation_id
    assert [c.finished.outcome for c in race.columns] == [Outcome.COMPLETE] * 2
    assert all(c.problem.text() == "" for c in app.race.race_window.columns.columns)


def _photo() -> Any:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 160, 40)).save(out, "PNG")
    return prepare_image(out.getvalue(), "field.png")


def test_the_race_window_closes_and_its_text_is_the_chats_size(make_app, run) -> None:
    """Issue 39, item 9: a Close button, Esc closes it once nothing runs, and its
    answers' text follows the chat's size and zoom."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from client.ui.common.reading_style import reading_style

    lab = LabServer(scenario_from_dict({"ttft": 5, "tpot_ms": 5, "output_tokens": 5}))
    url = run(lab.start())
    app = make_app()
    window = app.race.race_window
    try:
        choice = ServerChoice("lab", url, "openai")
        app.race.start([RoutePick(choice, "tachy-lab"), RoutePick(choice, "tachy-lab")], "hi")
        run(until(lambda: app.race.controller.task is not None))
        run(until(lambda: app.race.controller.task.done()))
        column = window.columns.columns[0]
        chat = app.window.chat_view
        assert column.answer.font().pixelSize() == chat.font().pixelSize()
        reading_style().zoom_in()
        try:
            assert column.answer.font().pixelSize() == chat.font().pixelSize()
        finally:
            reading_style().reset_zoom()
        assert window.isVisible()
        QTest.keyClick(window, Qt.Key.Key_Escape)  # nothing runs: Esc closes it
        assert not window.isVisible()
        window.show()
        window.columns.close_button.click()
        assert not window.isVisible()
    finally:
        run(lab.stop())
