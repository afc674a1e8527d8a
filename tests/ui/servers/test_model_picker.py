"""The model picker: every server's models under the server's name, each with its
state and last measured TTFT; typing narrows the list (10,000 names too); the saved
cascade is an entry that turns the cascade on, and picking one model turns it off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from client.core.metrics import RequestMetrics
from client.services.servers.servers import LOCAL_ENGINE_LABEL, local_model_name
from client.services.storage.stores import open_stores
from client.ui.servers.picker.model_rows import RowKind
from tests.memory_keyring import MemoryKeyring
from tests.ui import scripted_server
from tests.ui.chat.test_hostile_names import NamedServer
from tests.ui.conftest import until

LOADED = "b-model:7b"


async def _one_loaded(_: web.Request) -> web.Response:
    """/api/ps: LOADED is in memory for 10 more minutes."""
    expires = (datetime.now(UTC) + timedelta(minutes=10)).isoformat()
    return web.json_response({"models": [{"name": LOADED, "expires_at": expires}]})


async def settled(app: Any) -> None:
    """Until the picker's reading (started by opening it) ended: a task still running
    when run() returns would be stepped by qasync outside the loop."""
    link = app.model_picker
    await until(lambda: link._refreshing is None or link._refreshing.done())


def rows(app: Any) -> list[tuple[str, str, str]]:
    picker = app.window.server_bar.model_picker
    return [(row.kind, row.text, row.detail) for row in picker.rows.rows]


def shown(app: Any) -> list[str]:
    popup = app.window.server_bar.model_picker.popup
    model = popup.list.model()
    return [model.index(i).data() for i in range(model.rowCount())]


@pytest.fixture
def second(run: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(scripted_server, "_running", _one_loaded)
    box = NamedServer([LOADED, "b-other:1b"])
    run(box.start())
    yield box
    run(box.stop())


def _two_servers(make_app: Any, server: Any, second: Any, run: Any, data_dir: Path) -> Any:
    earlier = open_stores(data_dir / "tachy.sqlite3")  # an earlier session's requests
    here = "Server at " + server.url.split("://")[1]  # as the window names a --url server
    metrics = earlier.metrics
    metrics.record(RequestMetrics(ttft_ms=123.0), server="Box", model=LOADED, outcome="done")
    metrics.record(RequestMetrics(ttft_ms=456.0), server=here, model="other:7b", outcome="done")
    earlier.close()
    app = make_app(server.url)
    assert app.servers.current.name == here
    app.stores.endpoints.save("Box", second.url, "ollama")

    async def listed() -> None:  # in one run: the listing it starts ends in it too
        await app.servers.refresh_choices()
        assert all(text != LOADED for _, text, _ in rows(app))  # asked when the list opens
        app.window.server_bar.model_picker.showPopup()
        await until(lambda: any(text == LOADED for _, text, _ in rows(app)))
        popup = app.window.server_bar.model_picker.popup
        # Box's models arrived above: the model in use stays the one selected.
        await until(lambda: popup.list.currentIndex().data() == "scripted:1b")
        assert not popup.list.horizontalScrollBar().isVisible()
        app.window.server_bar.model_picker.hidePopup()
        await settled(app)

    run(listed())
    return app


def test_models_grouped_by_server_with_state_and_last_ttft(
    make_app: Any,
    server: Any,
    second: Any,
    run: Any,
    data_dir: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    app = _two_servers(make_app, server, second, run, data_dir)
    here = app.servers.current.name
    picker = app.window.server_bar.model_picker

    def details() -> dict[str, str]:
        return {text: detail for _, text, detail in rows(app)}

    async def opened() -> None:  # opening the picker reads the states and TTFTs again
        picker.showPopup()
        await until(lambda: "warm" in details()[LOADED] and "cold" in details()["other:7b"])
        picker.hidePopup()
        await settled(app)

    run(opened())
    listed = rows(app)
    assert [(kind, text) for kind, text, _ in listed] == [
        (RowKind.HEADER, LOCAL_ENGINE_LABEL),  # always listed, started or not
        (RowKind.MODEL, local_model_name()),
        (RowKind.HEADER, "Box"),
        (RowKind.MODEL, LOADED),
        (RowKind.MODEL, "b-other:1b"),
        (RowKind.HEADER, here),
        (RowKind.MODEL, "scripted:1b"),
        (RowKind.MODEL, "other:7b"),
    ]
    shown_details = details()
    assert shown_details[LOADED] in (
        "warm · 10 min left · TTFT 120 ms",
        "warm · 9 min left · TTFT 120 ms",
    )
    assert shown_details["b-other:1b"] == "cold"
    assert shown_details["other:7b"] == "cold · TTFT 460 ms"
    assert picker.currentText() == "scripted:1b"
    tip = picker.rows.index(3).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(LOADED) and "TTFT 120 ms" in tip

    # Choosing another server's model: that server and model are used from now on.
    async def choose() -> None:
        picker.setFocus()
        QApplication.processEvents()
        picker.open_filtered("b-mod")
        assert shown(app) == ["Box", LOADED]
        popup = picker.popup
        assert popup.filter_edit.hasFocus() or popup.isVisible()
        popup.filter_edit.setFocus()
        from PySide6.QtTest import QTest

        QTest.keyClick(popup.filter_edit, Qt.Key.Key_Return)
        await until(lambda: app.page.session.model == LOADED)
        await settled(app)

    run(choose())
    assert app.servers.current.name == "Box"
    assert app.page.session.backend.base_url.startswith(second.url)
    assert "Box" in app.window.server_bar.server_picker.currentText()
    assert picker.currentText() == LOADED and not picker.popup.isVisible()


def test_typing_in_the_closed_picker_filters_and_keys_skip_server_names(
    make_app: Any,
    server: Any,
    second: Any,
    run: Any,
    qtbot: Any,
    data_dir: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    app = _two_servers(make_app, server, second, run, data_dir)
    picker = app.window.server_bar.model_picker
    picker.setFocus()
    qtbot.keyClicks(picker, "oth")  # the first letter opens the list, the rest go on filtering
    run(settled(app))
    popup = picker.popup
    assert popup.isVisible() and popup.filter_edit.text() == "oth"
    assert popup.filter_edit.accessibleName() and popup.list.accessibleName()
    here = app.servers.current.name
    assert shown(app) == ["Box", "b-other:1b", here, "other:7b"]
    assert popup.list.currentIndex().data() == "b-other:1b"  # a name is never selected
    qtbot.keyClick(popup.filter_edit, Qt.Key.Key_Down)  # over the server's name
    assert popup.list.currentIndex().data() == "other:7b"
    qtbot.keyClicks(popup.filter_edit, "zzz")
    assert shown(app) == [] and not popup.empty_label.isHidden()
    qtbot.keyClick(popup.filter_edit, Qt.Key.Key_Escape)
    assert not popup.isVisible() and app.page.session.model == "scripted:1b"
    # Closed, Up/Down step through the models, not onto a server's name.
    picker.setCurrentIndex(6)  # scripted:1b (after the local model's and Box's rows)
    qtbot.keyClick(picker, Qt.Key.Key_Up)
    assert picker.currentText() == "b-other:1b"  # row 3 is a server's name: passed over


def test_ten_thousand_models_filter_to_the_few_that_match(make_app: Any, run: Any) -> None:
    names = [f"family-{n % 50}/model-{n:05d}:q4_K_M" for n in range(10_000)]
    server = NamedServer(names)
    run(server.start())
    try:
        app = make_app(server.url, model=names[0])
        picker = app.window.server_bar.model_picker
        assert picker.count() == 10_000 + 3  # and the local model under its name
        picker.open_filtered("model-0777")
        run(settled(app))
        here = app.servers.current.name  # its name heads its models: the local model's too
        assert shown(app) == [here, *names[7770:7780]]
        picker.popup.filter_edit.setText("Q4_k_m 07777")  # words, in any case and order
        assert shown(app) == [here, names[7777]]
        picker.popup.filter_edit.clear()
        assert len(shown(app)) == 10_000 + 3
        picker.popup.filter_edit.setText("model-09999")
        picker.popup._choose(picker.popup.list.currentIndex())
        assert app.page.session.model == names[9_999] == picker.currentText()
    finally:
        run(server.stop())


def test_the_cascade_entry_turns_the_cascade_on_and_one_model_turns_it_off(
    make_app: Any, server: Any, run: Any
) -> None:
    app = make_app(server.url)
    menu, picker = app.cascade_menu, app.window.server_bar.model_picker
    assert all(kind != RowKind.CASCADE for kind, _, _ in rows(app))  # none set up yet
    menu.fast_action.trigger()  # the model chosen now: scripted:1b
    app.page.session.use_model("other:7b")
    menu.strong_action.trigger()
    label = "Cascade · fast scripted:1b · strong other:7b"
    assert rows(app)[-1][:2] == (RowKind.CASCADE, label)
    assert not app.cascade.active()

    async def choose(text: str) -> None:  # as a click on the row showing text
        picker.open_filtered(text)
        listed = picker.popup.list.model()
        row = next(i for i in range(listed.rowCount()) if listed.index(i).data() == text)
        picker.popup.list.clicked.emit(listed.index(row))
        await settled(app)

    run(choose(label))
    run(until(app.cascade.active))
    assert menu.use_action.isChecked() and picker.currentText() == label
    routes = app.page.session.routes
    assert [(r.tier, r.model) for r in routes] == [("fast", "scripted:1b"), ("strong", "other:7b")]

    run(choose("other:7b"))  # one model again: the cascade goes off, that model answers
    assert not app.cascade.active() and not menu.use_action.isChecked()
    assert [r.model for r in app.page.session.routes] == ["other:7b"]
    assert picker.currentText() == "other:7b"
    assert not menu.saved.load().on  # and stays off at the next start

    menu.use_action.setChecked(True)  # the menu's switch: the picker shows the entry
    run(until(lambda: picker.currentText() == label))
