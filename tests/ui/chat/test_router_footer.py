"""An answer through the real vLLM router says "via router" under it: the router does not
say which worker answered (no header of its own, the same system_fingerprint from every
worker), so the footer never names one; a reopened answer says it as the live one did."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from client.lab import RunningLab, run_in_thread, scenario_from_dict
from tests.backends.kinds.routers import RunningRouter, running_router
from tests.ui.conftest import until


@pytest.fixture
def router() -> Iterator[tuple[RunningRouter, list[RunningLab]]]:
    labs = [run_in_thread(scenario_from_dict({"seed": 1, "ttft": 5, "tpot_ms": 1})) for _ in "ab"]
    try:
        with running_router([lab.url for lab in labs]) as running:
            yield running, labs
    finally:
        for lab in labs:
            lab.stop()


def test_the_router_names_no_worker_in_its_answers(router: Any) -> None:
    running, labs = router
    body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
    answers = [httpx.post(f"{running.url}/v1/chat/completions", json=body) for _ in labs]
    headers = [{k.lower() for k in a.headers} for a in answers]
    assert not any("worker" in name for names in headers for name in names)
    fingerprints = {a.json().get("system_fingerprint") for a in answers}
    assert len(fingerprints) == 1  # both workers alike: it tells nothing of which


def test_an_answer_through_a_router_says_via_router_live_and_reopened(
    router: Any, make_app: Any, run: Any, qtbot: Any
) -> None:
    running, labs = router
    app = make_app(running.url, "tachy-lab", api="openai")
    w = app.window

    async def ask() -> None:
        w.composer.setPlainText("hi")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and bool(w.chat_view.keys()))

    run(ask())
    footer = w.chat_view.message(w.chat_view.keys()[-1]).footer
    assert footer.endswith(" · via router"), footer
    assert not any(lab.url in footer for lab in labs)

    again = make_app(running.url, "tachy-lab", api="openai")  # a restart, then reopened
    again.page.show_conversation(app.page.conversation_id)
    view = again.window.chat_view
    assert view.message(view.keys()[-1]).footer == footer  # kept with the answer's figures
