"""Prefix warming in the window: the warm-up's messages are the start of the request
the next question sends (system prompt, history, the budget's cut), and the user's
own request counts as priming the server's prompt cache."""

from __future__ import annotations

import asyncio
from typing import Any

from client.core.conversation import ChatMessage
from client.services.servers.model_status import ServerPolicy
from client.services.storage.stores import open_stores
from tests.ui.conftest import until
from tests.ui.warming.test_warming_ui import MODEL, answered, lab, send, warm_app  # noqa: F401


def question_sent(app: Any) -> list[ChatMessage]:
    generation = app.page.runner.generation
    assert generation is not None and generation.fitted is not None
    return list(generation.fitted.messages)


def test_the_warmed_prefix_is_the_start_of_the_next_request(warm_app, run, lab):  # noqa: F811
    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        session = app.page.session
        session.configure(system_prompt="Answer briefly.")
        send(app, "What is a tide?")
        await until(answered(app, 1))

        app.window.composer.setPlainText("Why does it turn?")
        prefix = link.next_prefix()
        assert prefix is not None
        assert [m.role for m in prefix] == ["system", "user", "assistant"]
        # The user's request primed the cache with its prompt and answer.
        assert link.warmer.holds(prefix)
        send(app, "Why does it turn?")
        await until(answered(app, 2))
        sent = question_sent(app)
        assert sent[:-1] == prefix and sent[-1] == ChatMessage("user", "Why does it turn?")

        # A budget that has room for the last turn only: the prefix is cut as the
        # request will be, and that start is not in the server's cache.
        draft = ChatMessage("user", "And the moon?")
        full = link.next_prefix()
        assert full is not None and len(full) == 5
        count = session.token_counter
        session.configure(prompt_budget=sum(count(m) for m in [full[0], *full[3:], draft]) + 1)
        app.window.composer.setPlainText(draft.content)
        prefix = link.next_prefix()
        assert prefix == [full[0], *full[3:]]
        assert not link.warmer.holds(prefix)
        send(app, draft.content)
        await until(answered(app, 3))
        sent = question_sent(app)
        assert sent[:-1] == prefix and sent[-1] == draft

    run(body())


def test_a_new_conversation_starts_with_the_system_prompt(warm_app, run, lab):  # noqa: F811
    async def body() -> None:
        app = await warm_app()
        link = app.warming
        assert link is not None
        assert link.next_prefix() == []  # no conversation, no system prompt
        app.page.session.configure(system_prompt="Answer briefly.")
        assert link.next_prefix() == [ChatMessage("system", "Answer briefly.")]
        await until(lambda: link.state_label.text().startswith("warm"))
        await until(lambda: app.page.session.settings.prompt_budget is not None)

    run(body())


def test_reopening_a_conversation_warms_its_prefix(warm_app, run, lab):  # noqa: F811
    """Against the lab's OpenAI API (it says vLLM: a server with a prompt cache)."""

    async def body() -> None:
        app = await warm_app(api="openai")
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text() == "warm")
        assert link.warmer.policy is ServerPolicy.KEEPS_LOADED
        send(app, "What is a tide?")
        await until(answered(app, 1))
        first = app.page.conversation_id
        panel = app.window.conversations
        panel.newRequested.emit()
        await until(lambda: app.page.conversation_id is None)
        send(app, "Name a fish.")  # the server's cache now holds this one
        await until(answered(app, 1))
        before = link.warmer.warm_requests
        panel.chosen.emit(first)
        await until(lambda: app.page.conversation_id == first)
        await until(lambda: link.warmer.warm_requests == before + 1)
        prefix = link.next_prefix()
        assert prefix is not None and [m.content for m in prefix][:1] == ["What is a tide?"]
        await until(lambda: link.warmer.holds(prefix))
        assert link.warmer.warm("typing") is None  # in the cache: nothing more to send

    run(body())


def test_a_long_conversation_is_warmed_when_typed_in_not_when_passed_through(
    warm_app,  # noqa: F811
    run,
    data_dir,
    lab,  # noqa: F811
):
    """Reading a long conversation keeps a server busy for seconds, and the local
    engine cannot stop a cancelled prefill: opening one only to pass on to another must
    not make the next question wait. Typing in it shows the user is staying."""
    from client.services.warming.warming_policy import OPENED_WARM_MAX_TOKENS
    from client.ui.warming.warming_controller import OPENED_WARM_MS

    stores = open_stores(data_dir / "tachy.sqlite3")
    history = stores.history
    long = history.create_conversation("A long one")
    words = " ".join(["tide"] * (2 * OPENED_WARM_MAX_TOKENS))
    question = history.add_message(long.id, "user", words)
    history.add_message(long.id, "assistant", words, parent_id=question.id)
    stores.close()

    async def body() -> None:
        app = await warm_app(api="openai")
        link = app.warming
        assert link is not None
        await until(lambda: link.state_label.text() == "warm")
        before = link.warmer.warm_requests
        app.window.conversations.chosen.emit(long.id)
        await until(lambda: app.page.conversation_id == long.id)
        await asyncio.sleep(OPENED_WARM_MS / 1000 + 0.5)
        assert link.warmer.warm_requests == before  # not read just for being opened
        app.window.composer.setPlainText("And then?")
        await until(lambda: link.warmer.warm_requests == before + 1)

    run(body())
