"""The HUD after a restart: the Requests view shows the requests of earlier runs."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from tests.ui.conftest import until


def _send(app: Any, qtbot: Any, run: Any, text: str, answers: int) -> None:
    w = app.window

    async def scenario() -> None:
        w.composer.setPlainText(text)
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and len(app.hud.book.records) >= answers)

    run(scenario())


def test_requests_of_an_earlier_run_are_shown_after_a_restart(make_app, server, run, qtbot):
    first = make_app(server.url)
    _send(first, qtbot, run, "Hello", 1)
    _send(first, qtbot, run, "Hello again", 2)
    run(until(lambda: first.stores.metrics.count() >= 2))
    run(first.aclose())
    first.window.close()

    again = make_app(server.url)
    hud = again.hud
    past = [r for r in hud.book.records if r.from_history]
    assert len(past) == 2
    assert all(r.ttft_ms is not None and r.model == "scripted:1b" for r in past)
    shown = hud.shown_records()  # the scope the Requests view starts with
    assert len(shown) == 2
    assert len(hud.requests.points.data) == 2  # two TTFT points plotted
    assert hud.requests.table.item(0, 0).text() == "2"  # n of the first metric
