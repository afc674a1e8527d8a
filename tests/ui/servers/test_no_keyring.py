"""No system keyring (a fresh Linux box, a container): a server without an API key needs
none, so adding, choosing and pooling such servers works; the keyring's absence is said
once, with what still works; the picker never names a server other than the one that
answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from client.lab import LabServer, scenario_from_dict
from client.services.fleet.pool import POOL_API, Policy, PoolMember, ServerPool
from client.services.fleet.pool_backend import PoolBackend
from tests.ui.conftest import until

DIALS: dict[str, Any] = {"ttft": 20, "tpot_ms": 2, "output_tokens": 4}


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def two_labs(run: Any) -> Iterator[tuple[str, str]]:
    labs = [LabServer(scenario_from_dict(DIALS)) for _ in range(2)]
    urls = [run(lab.start()) for lab in labs]
    yield urls[0], urls[1]
    for lab in labs:
        run(lab.stop())


def answering_url(app: Any) -> str:
    backend = app.page.session.routes[0].backend
    return getattr(backend, "base_url", "")


def test_adding_a_server_without_a_key_needs_no_keyring(
    make_app: Any, server: Any, run: Any, two_labs: tuple[str, str], no_keyring: None
) -> None:
    app = make_app(server.url)
    app.servers.open_add_server()
    dialog = app.servers._dialog
    dialog.name_edit.setText("Box A")
    dialog.url_edit.setText(two_labs[0])
    dialog.api_picker.setCurrentText("ollama")

    async def save() -> None:
        dialog._save()
        await until(lambda: answering_url(app) == two_labs[0])

    run(save())
    assert not dialog.isVisible()
    assert "Box A" in app.window.server_bar.server_picker.currentText()
    assert "Something went wrong" not in app.window.stage_label.text()


def test_picking_a_saved_server_or_a_pool_really_switches(
    make_app: Any, server: Any, run: Any, two_labs: tuple[str, str], no_keyring: None
) -> None:
    app = make_app(server.url)
    first, second = two_labs
    run(app.servers._save_server("Box A", first, "ollama", ""))
    run(app.servers._save_server("Box B", second, "ollama", ""))
    bar = app.window.server_bar

    async def pick(name: str, answered: Any) -> None:
        index = next(i for i, c in enumerate(bar.choices) if c.name == name)
        bar.server_picker.setCurrentIndex(index)  # as the user picks it
        await until(answered)

    run(pick("Box A", lambda: answering_url(app) == first))
    assert "Box A" in bar.server_picker.currentText()
    run(pick("Box B", lambda: answering_url(app) == second))
    members = tuple(PoolMember(choice) for choice in app.tachy.saved_servers.choices())
    app.tachy.pools.save(ServerPool("Pair", members, Policy.FAILOVER, "tachy-lab"))
    run(app.servers.refresh_choices())
    pooled = lambda: isinstance(app.page.session.routes[0].backend, PoolBackend)  # noqa: E731
    run(pick("Pair", pooled))
    assert any(c.api == POOL_API for c in bar.choices)
    assert "Pair" in bar.server_picker.currentText()
    notice = app.servers.keyring_notice
    assert notice.isVisible() and notice.said
    assert "without an API key work" in notice.label.text()


def test_a_server_that_cannot_be_used_leaves_the_picker_on_the_one_that_answers(
    make_app: Any, server: Any, run: Any, two_labs: tuple[str, str]
) -> None:
    app = make_app(server.url)
    run(app.servers._save_server("Box A", two_labs[0], "ollama", ""))
    run(app.servers._save_server("Box B", two_labs[1], "ollama", ""))
    members = tuple(PoolMember(choice) for choice in app.tachy.saved_servers.choices())
    app.tachy.pools.save(ServerPool("Gone", members, Policy.FAILOVER, "tachy-lab"))
    run(app.servers.refresh_choices())
    app.tachy.pools.remove("Gone")  # still listed: the picker was filled before
    bar = app.window.server_bar

    async def pick_the_gone_pool() -> None:
        index = next(i for i, c in enumerate(bar.choices) if c.api == POOL_API)
        bar.server_picker.setCurrentIndex(index)
        await until(lambda: "cannot be used" in app.window.stage_label.text())

    run(pick_the_gone_pool())
    assert answering_url(app) == two_labs[1]  # the server chosen last, saved last
    assert "Box B" in bar.server_picker.currentText()
    assert app.servers.current is not None and app.servers.current.name == "Box B"
    assert "Answers still come from Box B" in app.window.stage_label.text()


def test_a_question_asked_while_a_picked_server_is_being_asked_goes_to_it(
    make_app: Any, server: Any, run: Any, two_labs: tuple[str, str]
) -> None:
    app = make_app(server.url)
    run(app.servers._save_server("Box A", two_labs[0], "ollama", ""))
    first = len(server.requests)
    bar = app.window.server_bar
    back = next(i for i, c in enumerate(bar.choices) if c.url == server.url)

    async def pick_then_ask() -> None:
        bar.server_picker.setCurrentIndex(back)  # the scripted server again, being asked
        app.page.send("who answers?")  # before it listed its models
        await until(lambda: not app.page.busy and app.page.kept_question is None)
        await until(lambda: len(server.requests) > first)

    run(pick_then_ask())
    assert server.requests[-1]["messages"][-1]["content"] == "who answers?"
