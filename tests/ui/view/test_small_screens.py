"""A 1024x640 screen holds the whole window (its frame too): the server bar's buttons
stay on it (the model's state gives way first), and the folded latency strip says a
click opens the panel. The Add server dialog shows its hints and errors whole; the
Server tab keeps its figures together and shows no row the server left empty."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication

from client.backends.kinds.llamacpp.metrics import parse_llamacpp_metrics
from client.services.hud.server_stats import ServerSnapshot
from client.ui.hud.tabs.server_view import ServerView
from client.ui.servers.server_dialog import AddServerDialog
from client.ui.shell.window_geometry import FRAME_ROOM, first_start_geometry

SMALL = QRect(0, 0, 1024, 640)


def test_the_window_fits_a_1024_screen_with_its_frame(
    make_app: Any, server: Any, qtbot: Any
) -> None:
    app = make_app(server.url, warm_models=True)
    label = app.warming.state_label
    label.setText("warm · 30 min left")  # the longest state it shows
    app.window.setGeometry(first_start_geometry(SMALL, app.window.minimumSizeHint()))
    QApplication.processEvents()
    assert app.window.minimumSizeHint().width() <= SMALL.width() - FRAME_ROOM.width()
    bar = app.window.server_bar
    models = bar.findChild(type(bar.add_button), "modelsButton")
    right = models.mapTo(app.window, models.rect().bottomRight()).x()
    assert right < app.window.width()  # ⇩ Models whole
    qtbot.waitUntil(lambda: app.view.fold.folded)
    assert "open the panel" in app.view.fold.strip.open_hint.text()


def test_the_add_server_dialog_shows_its_hints_and_errors_whole(qtbot: Any) -> None:
    dialog = AddServerDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    for edit in (dialog.url_edit, dialog.key_edit):
        needed = edit.fontMetrics().horizontalAdvance(edit.placeholderText())
        assert edit.width() > needed, edit.placeholderText()
    dialog.show_error("A server needs a name and a URL. " * 3)
    QApplication.processEvents()
    label = dialog.error_label
    assert label.height() >= label.heightForWidth(label.width())


def test_the_server_tab_keeps_its_figures_together_and_hides_empty_rows(qtbot: Any) -> None:
    view = ServerView()
    qtbot.addWidget(view)
    view.resize(360, 760)
    view.show()
    metrics = "llamacpp:prompt_tokens_total 10\nllamacpp:prompt_seconds_total 0.2\n"
    snap: ServerSnapshot = parse_llamacpp_metrics(metrics)
    view.show_snapshot(snap)
    QApplication.processEvents()
    assert view.status.geometry().top() < 40  # no band above the figures
    rows = {name: not label.isHidden() for name, label in view.figures.items()}
    assert rows["prompt tokens/s"] and not rows["kv cache"] and not rows["draft acceptance"]


def test_a_warm_ups_single_token_is_no_decode_rate() -> None:
    warm_up = (
        "llamacpp:tokens_predicted_total 1\nllamacpp:tokens_predicted_seconds_total 0.000001\n"
    )
    assert parse_llamacpp_metrics(warm_up).decode_tokens_per_s is None
