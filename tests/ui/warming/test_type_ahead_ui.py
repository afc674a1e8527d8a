"""Type-ahead in the window, against the lab speaking llama.cpp on loopback (on by
default there): the draft is read while typed, the composer says how much, and the
answer's footer says what it saved, from the server's cached count, live and when the
conversation is opened again (stored with the request's figures)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from client.core.metrics import TYPE_AHEAD_SOURCE
from client.lab import LabServer, scenario_from_dict
from client.services.hud.hud_model import record_from_stored
from client.services.hud.waterfall import QUESTION_READ, build_waterfall
from client.services.warming.type_ahead import setting_key
from tests.ui.conftest import LoopRunner, until
from tests.ui.warming.test_warming_ui import answered, send, warm_app  # noqa: F401

QUESTION = "How does a prompt cache save time when the same start comes again? " * 4


@pytest.fixture
def lab(run: LoopRunner) -> Iterator[LabServer]:
    scenario = {"server": "llamacpp", "ttft": 5, "tpot_ms": 1, "output_tokens": 4, "seed": 1}
    server = LabServer(scenario_from_dict(scenario))
    run(server.start())
    yield server
    run(server.stop())


def test_the_draft_is_read_while_typed_and_the_footer_says_what_it_saved(
    warm_app: Any,  # noqa: F811
    run: LoopRunner,
    lab: LabServer,
) -> None:
    async def body() -> None:
        app = await warm_app("openai", start=False)
        await app.start(lab.url, "openai", "tachy-lab")
        link = app.warming
        assert link is not None
        ahead = link.type_ahead
        assert ahead.enabled and ahead.action.isChecked()  # loopback: on by default
        session = app.tachy.session
        assert session is not None and session.slot_hint is ahead.type_ahead  # Enter asks it
        # The lab's prompt cache holds one prompt: a start-up warm-up after the read
        # would take its place (llama-server keeps one per slot, and more in RAM).
        await until(lambda: link.state_label.text().startswith("warm"))
        app.window.composer.setPlainText(QUESTION)
        label = ahead.readiness_label

        def read_whole() -> bool:
            words = label.text().removeprefix("Question read: ").split()
            return len(words) == 4 and words[0] == words[2]

        await until(read_whole)
        assert ahead.type_ahead.reads_sent >= 1
        draft = link.policy.draft  # the predicted wait counts what is left to read
        assert draft is not None and draft.tokens == 0
        send(app, QUESTION)
        assert label.text() == ""
        await until(answered(app, 1))
        generation = app.page.runner.generation
        assert generation is not None and generation.finished is not None
        saved = generation.finished.metrics.server[TYPE_AHEAD_SOURCE]
        assert saved.values["tokens"] > 40  # the question, as the lab counted its cache
        view = app.window.chat_view
        key = view.keys()[-1]
        footer = view.message(key).footer
        assert "question read while typing" in footer, footer
        await _reopened_shows_the_saving(app, key, int(saved.values["tokens"]))

        ahead.action.setChecked(False)  # off for this server, and remembered
        assert app.tachy.stores.settings.get(setting_key(lab.url, False)) is False
        reads = ahead.type_ahead.reads_sent
        app.window.composer.setPlainText(QUESTION + " Again?")
        assert not ahead._pause.isActive() and label.text() == ""
        assert ahead.type_ahead.reads_sent == reads

    run(body())


async def _reopened_shows_the_saving(app: Any, key: int, tokens: int) -> None:
    """The saving was stored with the request's figures: the reopened answer's footer and
    its waterfall (the HUD's, from the stored row) say it."""
    page, view = app.page, app.window.chat_view
    conversation = page.conversation_id
    page.show_conversation(None)
    assert "question read while typing" not in view.toPlainText()
    page.show_conversation(conversation)  # from the stored metrics
    footer = view.message(key).footer
    assert f"question read while typing: {tokens} tokens" in footer, footer
    (stored,) = app.tachy.stores.metrics.for_messages([key])[key]
    assert stored.server_timings[TYPE_AHEAD_SOURCE]["tokens"] == tokens
    rows = build_waterfall(record_from_stored(stored)).rows
    read = [row for row in rows if row.label == QUESTION_READ]
    assert read and dict(read[0].figures)["tokens"] == tokens, rows
