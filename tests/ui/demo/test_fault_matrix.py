"""The fault matrix: every lab fault through the real app (core + window, offscreen).

For each fault (client/lab/README.md) the latency lab runs in-process (its own thread)
and the app, speaking Ollama's API and then the OpenAI-compatible one, asks one question
with short timeouts set on the session. Each row asserts what the user is left with: the
message state (in the window and in SQLite), the exact text that arrived, the actions
offered, the question stored, and a composer that works afterwards (a normal question
on a healthy scenario completes). docs/lab.md has the table of what each row asserts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.lab import Distribution, Fault, RunningLab, Scenario, run_in_thread
from client.lab.scenarios.scenario import PRESETS
from client.services.servers.servers import ServerChoice
from tests.ui.conftest import until

MODEL = "tachy-lab:latest"
TOKENS = 20  # a reply's length on the healthy scenario
N = 5  # tokens that arrive before a mid-stream fault
FIRST_TOKEN_TIMEOUT_S = 0.4  # the session's "no first token yet" notice (Keep waiting)
STALL_TIMEOUT_S = 0.3  # the session's "no token for a while" limit, in the stall row
# Elsewhere a patient one: a 9 MiB line takes a while to arrive on a loaded machine, and
# the limit counts from the last token, not the last byte.
PATIENT_STALL_S = 5.0
QUESTION = "Why is the sky blue?"
AFTER = "Still there?"

NOTHING = ""
# The lab's text file holds one word, so every reply is that word repeated and the
# exact text that arrived before a fault is known: "tick tick tick tick tick".
WORD = "tick"


def ticks(count: int) -> str:
    return " ".join([WORD] * count)


FAILED_STEPS = ["Retry", "Edit question"]
KEPT_STEPS = ["Continue", "Retry"]


@dataclass(frozen=True)
class Row:
    name: str  # as in the lab's fault list
    fault: Fault | None  # None: no fault, the server is down
    state: str  # stored state (and shown) at the end
    text: str  # the answer text kept, exactly
    actions: list[str]  # the buttons offered at the end
    says: str  # part of the sentence shown (and stored with the message)
    waiting: str = ""  # "keep_waiting" / "cancel": the click while no token came
    shown: str = ""  # the state the window shows, when it is finer than the stored one


ROWS = [
    Row("HTTP 4xx", Fault("http_error", status=400, message="invalid options"),
        "failed", NOTHING, FAILED_STEPS, "(HTTP 400). The server said: “invalid options”."),
    Row("HTTP 5xx", Fault("http_error", status=500, message="out of memory"),
        "failed", NOTHING, FAILED_STEPS, "(HTTP 500). The server said: “out of memory”."),
    Row("503 queue full", Fault("queue_full"),
        "failed", NOTHING, FAILED_STEPS, "(HTTP 503). The server said: “server busy"),
    Row("error mid-stream", Fault("error_mid_stream", N, message="runner terminated"),
        "interrupted", ticks(N), KEPT_STEPS, "answer. The server said: “runner terminated”."),
    Row("reset after N tokens", Fault("reset", N),
        "interrupted", ticks(N), KEPT_STEPS, "The answer was interrupted"),
    Row("stall", Fault("stall", N, seconds=3.0),
        "interrupted", ticks(N), KEPT_STEPS, f"no token for {STALL_TIMEOUT_S:g} s"),
    Row("first byte after the client's timeout", Fault("slow_first_byte", seconds=1.5),
        "complete", ticks(TOKENS), [], "", waiting="keep_waiting"),
    Row("malformed JSON", Fault("malformed_json", N),
        "interrupted", ticks(N), KEPT_STEPS, "a line of the stream is not JSON"),
    Row("HTML error page", Fault("html_error"),
        "failed", NOTHING, FAILED_STEPS, "(HTTP 502). The server said: “502 Bad Gateway”."),
    Row("UTF-8 cut at the end", Fault("utf8_cut"),
        "interrupted", ticks(TOKENS), KEPT_STEPS, "a line of the stream is not JSON"),
    Row("oversize line (9 MiB)", Fault("oversize_line", N),
        "interrupted", ticks(N), KEPT_STEPS, "longer than 8 MiB"),
    Row("accepts and never answers", Fault("never_answer"),
        "failed", NOTHING, FAILED_STEPS,
        "No answer arrived in ", "cancel", "timed_out"),
    Row("unknown model", Fault("unknown_model"),
        "failed", NOTHING, FAILED_STEPS, f"no model named '{MODEL}'"),
    Row("server down (connection refused)", None,
        "failed", NOTHING, ["Retry", "Choose another server", "Use the local model"],
        "Can't reach the server", shown="unreachable"),
]  # fmt: skip


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    words = tmp_path_factory.mktemp("lab") / "answer.txt"
    words.write_text(WORD, encoding="utf-8")
    return replace(
        PRESETS["instant"],
        name="healthy",
        ttft=Distribution("fixed", 20.0),
        tpot_ms=5.0,
        jitter_ms=0.0,
        output_tokens=TOKENS,
        text_file=str(words),
    )


@pytest.fixture(scope="module")
def lab(healthy: Scenario) -> Iterator[RunningLab]:
    running = run_in_thread(healthy)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def dead_url(healthy: Scenario) -> str:
    gone = run_in_thread(healthy)
    gone.stop()  # its port now refuses connections
    return gone.url


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def _labels(app: Any) -> list[str]:
    bar = app.window.outcome_bar
    return [button.text() for button in bar.buttons.values()] if bar.isVisible() else []


def _stored(data_dir: Path, conversation_id: int) -> list[tuple[str, str, str, str]]:
    """The conversation's messages as a fresh connection reads them from the file."""
    with sqlite3.connect(data_dir / "tachy.sqlite3") as conn:
        rows = conn.execute(
            "SELECT role, content, state, error_message FROM messages"
            " WHERE conversation_id = ? AND active = 1 ORDER BY id",
            (conversation_id,),
        ).fetchall()
    return [tuple(row) for row in rows]


@pytest.mark.parametrize("api", ["ollama", "openai"])
@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_fault(row, api, lab, healthy, dead_url, make_app, run, qtbot, data_dir) -> None:
    if row.fault is not None:
        lab.set_scenario(replace(healthy, name=row.fault.kind, fault=row.fault))
    else:
        lab.set_scenario(healthy)
    app = make_app(lab.url, model=MODEL, api=api)
    if row.fault is None:  # chosen while it answered, gone since (one down from the
        gone = ServerChoice("Gone", dead_url, api)  # start keeps the question: the
        app.tachy.use(run(app.tachy.backend(gone)), MODEL, gone)  # kept-question tests)
    assert app.page.session.backend.api == api
    session, w = app.page.session, app.window
    session.configure(slow_start_after_s=FIRST_TOKEN_TIMEOUT_S)
    stalls = row.fault is not None and row.fault.kind == "stall"
    session.configure(stall_timeout_s=STALL_TIMEOUT_S if stalls else PATIENT_STALL_S)
    held_before = lab.server.stats.held

    async def ask() -> None:
        _ask(app, qtbot, QUESTION)
        if row.waiting:
            await until(lambda: "keep_waiting" in w.outcome_bar.buttons)
            assert _labels(app) == ["Keep waiting", "Cancel"]
            notice = w.outcome_bar.message_label.text()
            assert notice.startswith("No answer after ") and "Waiting for the server" in notice
            click = w.outcome_bar.button(row.waiting)
            qtbot.mouseClick(click, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy)

    run(ask())
    view = w.chat_view
    key = view.keys()[-1]
    shown = view.message(key)
    assert (shown.role, shown.text) == ("assistant", row.text)
    assert shown.state == (row.shown or row.state)
    assert _labels(app) == row.actions
    assert w.stage_label.text() == ""  # one card: the sentence is in the bar, with its buttons
    sentence = w.outcome_bar.message_label.text()
    assert (row.says in sentence) if row.says else (sentence == ""), sentence
    assert "Traceback" not in sentence and "<html" not in sentence
    stored = _stored(data_dir, app.page.conversation_id)
    assert stored == [
        ("user", QUESTION, "complete", ""),
        ("assistant", row.text, row.state, sentence),
    ]
    if row.waiting == "cancel":  # the held request was let go: the lab saw the client leave
        run(until(lambda: lab.server.stats.held == held_before))

    lab.set_scenario(healthy)
    if row.fault is None:
        choice = ServerChoice("Latency lab", lab.url, api)
        run(app.servers.select(choice, MODEL))

    async def ask_again() -> None:
        assert w.send_button.isEnabled() and not w.stop_button.isEnabled()
        _ask(app, qtbot, AFTER)
        await until(lambda: not app.page.busy)

    run(ask_again())
    last = view.message(view.keys()[-1])
    assert (last.state, last.text) == ("complete", ticks(TOKENS))
    assert not w.outcome_bar.isVisible()
    assert w.composer.toPlainText() == ""
    stored = _stored(data_dir, app.page.conversation_id)
    assert stored[-2:] == [
        ("user", AFTER, "complete", ""),
        ("assistant", ticks(TOKENS), "complete", ""),
    ]
    assert stored[1][:3] == ("assistant", row.text, row.state)  # still there
