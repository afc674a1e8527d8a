"""Models from the window, against the lab as Ollama: a pull moves its progress bar
and the model appears in the picker; Cancel stops it; Delete asks first; a chat
that meets a missing model offers "Pull it"."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.lab import LabServer
from tests.ui.conftest import until

NAME = "smollm2:135m"


@pytest.fixture
def lab(run: Any) -> Iterator[LabServer]:
    server = LabServer("fast")
    run(server.start())
    server.state.pull_bytes_per_s = 1e9  # type: ignore[attr-defined]  # ~6 lines for 271 MB
    yield server
    run(server.stop())


def _picker_names(app: Any) -> list[str]:
    return app.window.server_bar.model_names()


def test_a_pull_moves_the_bar_and_the_model_appears_in_the_picker(
    make_app: Any, lab: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(lab.url, model="tachy-lab:latest")
    dialog = app.models.open()
    run(until(lambda: dialog.list.count() == 1))
    assert "Q4_K_M" in dialog.list.item(0).text()  # quantisation from /api/show
    assert "MB" in dialog.list.item(0).text()
    values: list[int] = []
    dialog.progress.valueChanged.connect(values.append)
    dialog.name_edit.setText(NAME)

    async def pull() -> None:
        qtbot.mouseClick(dialog.pull_button, Qt.MouseButton.LeftButton)
        await until(lambda: NAME in _picker_names(app))

    run(pull())
    assert any(0 < v < 1000 for v in values) and values[-1] == 1000, values
    assert "ready" in dialog.status_label.text()
    assert dialog.list.count() == 2
    assert app.page.session.model == NAME  # the pulled model is the one chosen


def test_cancel_stops_the_pull(make_app: Any, lab: Any, run: Any) -> None:
    lab.state.pull_bytes_per_s = 2e8  # type: ignore[attr-defined]
    app = make_app(lab.url, model="tachy-lab:latest")

    async def pull_and_cancel() -> None:
        app.models.pull(NAME)
        dialog = app.models.dialog
        await until(lambda: dialog.progress.value() > 0)
        assert dialog.cancel_button.isEnabled()
        dialog.cancel_button.click()
        await until(lambda: app.models.pulling.done())

    run(pull_and_cancel())
    assert "cancelled" in app.models.dialog.status_label.text()
    assert app.models.dialog.pull_button.isEnabled()
    assert NAME not in _picker_names(app)


def test_delete_asks_then_removes(make_app: Any, lab: Any, run: Any) -> None:
    app = make_app(lab.url, model="tachy-lab:latest")
    run(_pulled(app))
    dialog = app.models.dialog
    row = next(i for i in range(dialog.list.count()) if NAME in dialog.list.item(i).text())
    dialog.list.setCurrentRow(row)
    dialog.delete_button.click()
    box = app.models.confirm
    assert box.isVisible() and NAME in box.text()
    box.button(box.StandardButton.Cancel).click()
    assert dialog.list.count() == 2

    async def delete() -> None:
        app.models._ask_delete()
        app.models.confirm.findChild(type(dialog.delete_button), "confirmDeleteButton").click()
        await until(lambda: NAME not in _picker_names(app))

    run(delete())
    assert dialog.list.count() == 1


def test_a_chat_with_a_missing_model_offers_pull_it(
    make_app: Any, lab: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(lab.url, model=NAME)  # the server has no such model yet
    w = app.window

    async def ask() -> None:
        w.composer.setPlainText("Hello?")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and app.models.pull_bar.isVisible())

    run(ask())
    bar = app.models.pull_bar
    assert NAME in bar.message_label.text()

    async def pull_it() -> None:
        qtbot.mouseClick(bar.button("pull"), Qt.MouseButton.LeftButton)
        await until(lambda: NAME in _picker_names(app))

    run(pull_it())


async def _pulled(app: Any) -> None:
    app.models.pull(NAME)
    await until(lambda: NAME in _picker_names(app))
    await until(lambda: app.models.dialog.list.count() == 2)


def test_a_pull_before_any_server_is_chosen_says_so(make_app: Any, run: Any) -> None:
    app = make_app(None)  # the local engine is still "starting": no server yet
    assert app.servers.current is None

    async def pull() -> None:
        app.models.pull(NAME)
        await until(lambda: app.models.pulling.done())

    run(pull())
    assert app.models.dialog.status_label.text() == "No server is chosen yet."
    assert app.models.dialog.pull_button.isEnabled()
