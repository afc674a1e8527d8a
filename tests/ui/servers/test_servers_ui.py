"""Saved servers: the API key goes to the keyring only, never SQLite or settings."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.memory_keyring import MemoryKeyring
from tests.ui.conftest import until

SECRET = "sk-test-very-secret-123"


def test_add_server_keeps_the_key_in_the_keyring_only(
    make_app: Any, server: Any, run: Any, data_dir: Any, memory_keyring: MemoryKeyring
) -> None:
    app = make_app(server.url)
    app.servers.open_add_server()
    dialog = app.servers._dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    dialog.name_edit.setText("Team server")
    dialog.url_edit.setText(server.url)
    dialog.api_picker.setCurrentText("ollama")
    dialog.key_edit.setText(SECRET)

    async def save() -> None:
        dialog._save()
        await until(
            lambda: app.servers.current is not None and app.servers.current.name == "Team server"
        )

    run(save())
    assert memory_keyring.passwords == {("tachy", "Team server"): SECRET}
    assert dialog.key_edit.text() == ""
    assert "Team server" in app.window.server_bar.server_picker.currentText()
    app.window.save_layout()
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_bad_url_is_explained_in_the_dialog(make_app: Any, server: Any, run: Any) -> None:
    app = make_app(server.url)
    app.servers.open_add_server()
    dialog = app.servers._dialog
    dialog.name_edit.setText("Bad")
    dialog.url_edit.setText("ftp://example")
    run(app.servers._save_server("Bad", "ftp://example", "auto", ""))
    assert "http" in dialog.error_label.text()
    assert dialog.isVisible()


def test_bad_url_at_start_is_one_sentence_in_the_window(
    make_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    app = make_app("http://[::1:bad")
    sentence = "'http://[::1:bad' is not a server address: invalid port: ':1:bad'."
    assert app.window.stage_label.text() == sentence
    assert not tracebacks(caplog)
    assert app.page.session is None  # nothing was sent anywhere


@pytest.mark.parametrize("url", ["http://[::1:bad", "http://h:99999", "http://user:pw@h"])
def test_bad_address_in_the_dialog_is_one_sentence(
    make_app: Any, server: Any, run: Any, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(server.url)
    app.servers.open_add_server()
    dialog = app.servers._dialog
    run(app.servers._save_server("Bad", url, "auto", ""))
    assert "is not a server address" in dialog.error_label.text()
    assert "pw" not in dialog.error_label.text()
    assert dialog.isVisible() and app.stores.endpoints.list() == []
    assert not tracebacks(caplog)


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the app logged with a traceback (its report() of an error)."""
    return [r for r in caplog.records if r.exc_info and r.name.startswith("tachy")]
