"""Saved servers edited and removed: a new key replaces the old one without retyping
the rest, an empty key field keeps it, a rename carries it over, and removing (after
asking) deletes the endpoint and its key from the keyring."""

from __future__ import annotations

from typing import Any

from client.services.servers.servers import ServerChoice
from tests.memory_keyring import MemoryKeyring
from tests.ui.conftest import until

OLD_KEY, NEW_KEY = "sk-old-111", "sk-new-222"


def _saved_app(make_app: Any, server: Any, run: Any, keyring: MemoryKeyring) -> Any:
    app = make_app(server.url)
    run(app.servers._save_server("Team", server.url, "ollama", OLD_KEY))
    assert app.servers.current is not None and app.servers.current.name == "Team"
    assert keyring.passwords == {("tachy", "Team"): OLD_KEY}
    return app


def _edit(app: Any, run: Any, name: str, key: str) -> None:
    editor = app.server_editor
    assert editor.button.isEnabled()
    editor.open_editor()
    dialog = editor.dialog
    assert dialog.isVisible() and dialog.url_edit.text() and dialog.key_edit.text() == ""
    dialog.name_edit.setText(name)
    dialog.key_edit.setText(key)

    async def save() -> None:
        dialog._save()
        await until(lambda: not dialog.isVisible() and app.servers.current.name == name)

    run(save())


def test_a_new_key_replaces_the_old_one_without_retyping_the_rest(
    make_app: Any,
    server: Any,
    run: Any,
    memory_keyring: MemoryKeyring,
) -> None:
    app = _saved_app(make_app, server, run, memory_keyring)
    _edit(app, run, "Team", NEW_KEY)
    assert memory_keyring.passwords == {("tachy", "Team"): NEW_KEY}
    assert [e.name for e in app.stores.endpoints.list()] == ["Team"]


def test_an_empty_key_keeps_it_and_a_rename_carries_it_over(
    make_app: Any,
    server: Any,
    run: Any,
    memory_keyring: MemoryKeyring,
) -> None:
    app = _saved_app(make_app, server, run, memory_keyring)
    _edit(app, run, "Team GPU", "")
    assert memory_keyring.passwords == {("tachy", "Team GPU"): OLD_KEY}
    assert [e.name for e in app.stores.endpoints.list()] == ["Team GPU"]
    assert "Team GPU" in app.window.server_bar.server_picker.currentText()


def test_removing_asks_then_deletes_the_endpoint_and_its_key(
    make_app: Any,
    server: Any,
    run: Any,
    memory_keyring: MemoryKeyring,
) -> None:
    app = _saved_app(make_app, server, run, memory_keyring)
    editor = app.server_editor
    editor.open_editor()
    editor.dialog.remove_button.click()
    box = editor.confirm
    assert box is not None and box.isVisible() and "Team" in box.text()
    assert app.stores.endpoints.list() != []  # nothing is removed before the answer
    box.button(box.StandardButton.Cancel).click()
    assert memory_keyring.passwords and app.stores.endpoints.list() != []

    editor.ask_remove(app.servers.current)
    confirm = editor.confirm.findChild(type(editor.dialog.remove_button), "confirmRemoveButton")

    async def remove() -> None:  # clicked while the loop runs, as in the app
        confirm.click()
        await until(lambda: "Team" not in [c.name for c in app.window.server_bar.choices])

    run(remove())
    assert app.stores.endpoints.list() == [] and memory_keyring.passwords == {}
    assert not editor.button.isEnabled()


def test_only_a_saved_server_can_be_edited(make_app: Any, server: Any) -> None:
    app = make_app(server.url)  # --url: not saved
    assert not app.server_editor.button.isEnabled()
    assert not app.servers.saved.is_saved(ServerChoice("x", server.url, "ollama"))


def test_a_saved_server_that_cannot_be_used_can_still_be_removed(
    make_app: Any,
    server: Any,
    run: Any,
    memory_keyring: MemoryKeyring,
) -> None:
    app = make_app(server.url)
    app.stores.endpoints.save("Gone", "http://127.0.0.1:9", "auto")  # nothing answers there
    run(app.servers.refresh_choices())
    bar, editor = app.window.server_bar, app.server_editor
    assert not editor.button.isEnabled()  # the --url server is shown: not saved
    names = [choice.name for choice in bar.choices]

    async def pick_it() -> None:  # nothing answers: the window waits for it, and says so
        bar.server_picker.setCurrentIndex(names.index("Gone"))
        await until(lambda: app.servers.waiting is not None)

    run(pick_it())
    assert app.servers.current.name == "Gone" and app.servers.reach_bar.isVisible()
    assert editor.button.isEnabled()  # the server shown can be edited and removed
    editor.open_editor()
    assert editor.dialog.name_edit.text() == "Gone"

    async def remove() -> None:
        await editor.remove(editor.shown())
        await until(lambda: "Gone" not in [c.name for c in bar.choices])

    run(remove())
    assert [e.name for e in app.stores.endpoints.list()] == []
    assert app.page.session.backend.base_url.startswith(server.url)  # still in use
