"""A router's metrics address in the server's settings: a bad one is refused with a
sentence, a good one is kept (without the /metrics the view adds), given to the Server
tab's poller, shown again when the settings are reopened, and forgotten when cleared."""

from __future__ import annotations

from typing import Any

from tests.memory_keyring import MemoryKeyring
from tests.ui.conftest import until


def _saved_app(make_app: Any, server: Any, run: Any) -> Any:
    app = make_app(server.url)
    run(app.servers._save_server("Router", server.url, "ollama", ""))
    assert app.servers.current is not None and app.servers.current.name == "Router"
    return app


def _save_metrics(app: Any, run: Any, text: str) -> Any:
    editor = app.server_editor
    editor.open_editor()
    dialog = editor.dialog
    dialog.metrics_edit.setText(text)

    async def save() -> None:
        dialog._save()
        await until(lambda: not dialog.isVisible())

    run(save())
    return dialog


def test_a_bad_metrics_address_is_refused_with_a_sentence(
    make_app: Any, server: Any, run: Any, memory_keyring: MemoryKeyring
) -> None:
    app = _saved_app(make_app, server, run)
    app.server_editor.open_editor()
    dialog = app.server_editor.dialog
    dialog.metrics_edit.setText("ftp://127.0.0.1:29000")
    dialog._save()
    said = dialog.error_label.text()
    assert said.startswith("Router metrics: ") and "use http:// or https://" in said
    assert dialog.isVisible() and app.servers.saved.metrics_url(server.url) is None
    assert dialog.metrics_edit.accessibleName() == "Router metrics"


def test_a_metrics_address_is_kept_used_by_the_server_tab_and_cleared(
    make_app: Any, server: Any, run: Any, memory_keyring: MemoryKeyring
) -> None:
    app = _saved_app(make_app, server, run)
    _save_metrics(app, run, " http://127.0.0.1:29555/metrics ")
    given = "http://127.0.0.1:29555"
    assert app.servers.saved.metrics_url(server.url) == given
    run(until(lambda: app.hud.server.poller.metrics_url == given))  # the tab asks there

    app.server_editor.open_editor()
    assert app.server_editor.dialog.metrics_edit.text() == given  # shown again
    app.server_editor.dialog.close()
    _save_metrics(app, run, "")
    assert app.servers.saved.metrics_url(server.url) is None
    run(until(lambda: app.hud.server.poller.metrics_url is None))
