"""The keyring missing, locked or refusing: adding a server with a key says so and
offers to use the key for this session only; the key is never written anywhere."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from aiohttp import web
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring
from keyring.errors import KeyringLocked

from client.lab.server import LabServer
from tests.ui.conftest import until

SECRET = "sk-refused-by-the-keyring-42"


class TeamServer(LabServer):
    """The lab (OpenAI-compatible API) noting the Authorization header of each chat."""

    def __init__(self) -> None:
        super().__init__("instant")
        self.authorizations: list[str | None] = []

    def build_app(self) -> web.Application:
        app = super().build_app()

        @web.middleware
        async def note(request: web.Request, handler: Any) -> web.StreamResponse:
            if request.path.endswith("/chat/completions"):
                self.authorizations.append(request.headers.get("Authorization"))
            return await handler(request)

        app.middlewares.append(note)
        return app


class LockedKeyring(KeyringBackend):
    """A wallet that stays locked (the user dismissed the unlock prompt)."""

    priority = 0  # never chosen on its own (keyring's chainer takes every backend above 0)

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("the wallet is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("the wallet is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("the wallet is locked")


@pytest.fixture(params=[FailKeyring, LockedKeyring], ids=["no keyring", "locked"])
def refusing_keyring(request: pytest.FixtureRequest) -> Iterator[KeyringBackend]:
    previous = keyring.get_keyring()
    backend = request.param()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_a_refused_key_can_be_used_for_this_session_only(
    make_app: Any,
    server: Any,
    run: Any,
    data_dir: Path,
    refusing_keyring: KeyringBackend,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    app = make_app(server.url)
    team = TeamServer()  # the server that wants a key
    run(team.start())
    app.servers.open_add_server()
    dialog = app.servers._dialog
    dialog.name_edit.setText("Team server")
    dialog.url_edit.setText(team.url)
    dialog.api_picker.setCurrentText("openai")
    dialog.key_edit.setText(SECRET)

    async def save_then_choose_session() -> None:
        dialog._save()
        await until(lambda: dialog.session_button.isVisible())
        shown = dialog.error_label.text()
        assert "keyring" in shown and "not saved anywhere" in shown, shown
        assert "for this session only" in shown
        assert app.servers.current is None or app.servers.current.name != "Team server"
        dialog.session_button.click()
        await until(lambda: getattr(app.page.session.backend, "base_url", "") == team.url)
        assert app.servers.current is not None and app.servers.current.name == "Team server"
        app.page.send("who am I?")
        await until(lambda: len(team.authorizations) == 1)

    try:
        run(save_then_choose_session())
    finally:
        run(team.stop())
    assert not dialog.isVisible()
    # The key reached the server, as the Authorization header of the chosen server.
    assert team.authorizations == [f"Bearer {SECRET}"]
    # ... and is nowhere on disk, in no log line.
    app.window.save_layout()
    app.stores.history.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in caplog.text


def test_cancelling_forgets_the_refused_key(
    make_app: Any, server: Any, run: Any, refusing_keyring: KeyringBackend
) -> None:
    app = make_app(server.url)
    app.servers.open_add_server()
    dialog = app.servers._dialog
    dialog.name_edit.setText("Other")
    dialog.url_edit.setText(server.url)
    dialog.key_edit.setText(SECRET)

    async def save() -> None:
        dialog._save()
        await until(lambda: dialog.session_button.isVisible())

    run(save())
    dialog.reject()
    assert dialog._pending is None and not dialog.session_button.isVisible()
    assert dialog.key_edit.text() == ""
