"""The one set of words for what a turn is doing (client/services/chat/turn_state.py):
the status line under the chat, the bar's sentence, the waterfall's stage rows and
the Tier tab all say a state with these words, in the window's language."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from client.services.chat.session_events import Outcome
from client.services.chat.turn_state import OUTCOME_STATES, TurnState, stage_state
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

TURN_WORDS = {
    TurnState.QUEUED: QT_TRANSLATE_NOOP("TurnState", "Getting ready"),
    TurnState.CONNECTING: QT_TRANSLATE_NOOP("TurnState", "Connecting"),
    TurnState.WAITING: QT_TRANSLATE_NOOP("TurnState", "Waiting for the server"),
    TurnState.LOADING: QT_TRANSLATE_NOOP("TurnState", "Loading the model"),
    TurnState.UNDERSTANDING: QT_TRANSLATE_NOOP("TurnState", "Reading your question"),
    TurnState.READING: QT_TRANSLATE_NOOP("TurnState", "Reading your question"),
    TurnState.RETRIEVING: QT_TRANSLATE_NOOP("TurnState", "Searching your notes"),
    TurnState.THINKING: QT_TRANSLATE_NOOP("TurnState", "Thinking"),
    TurnState.ANSWERING: QT_TRANSLATE_NOOP("TurnState", "Answering"),
    TurnState.STALLED: QT_TRANSLATE_NOOP("TurnState", "No token for a while"),
    TurnState.APPROVAL: QT_TRANSLATE_NOOP("TurnState", "Waiting for your approval"),
    TurnState.USING_TOOL: QT_TRANSLATE_NOOP("TurnState", "Using a tool"),
    TurnState.DONE: QT_TRANSLATE_NOOP("TurnState", "Done"),
    TurnState.STOPPED: QT_TRANSLATE_NOOP("TurnState", "Stopped"),
    TurnState.FAILED: QT_TRANSLATE_NOOP("TurnState", "Failed"),
    TurnState.INTERRUPTED: QT_TRANSLATE_NOOP("TurnState", "Interrupted"),
}


# How a failed turn failed, said after "Failed" ("Failed · not sent: server unreachable").
FAILURE_KINDS = {
    Outcome.UNREACHABLE: QT_TRANSLATE_NOOP("TurnState", "not sent: server unreachable"),
    Outcome.TIMED_OUT: QT_TRANSLATE_NOOP("TurnState", "cancelled while waiting"),
}


def turn_word(state: TurnState) -> str:
    """The state in the window's language ("Waiting for the server")."""
    return QCoreApplication.translate("TurnState", TURN_WORDS[state])


def stage_word(stage: str) -> str | None:
    """A timeline stage ("understanding") said as its state; None for another row."""
    state = stage_state(stage)
    return turn_word(state) if state is not None else None


def slow_start_sentence(state: TurnState, waited_s: float) -> str:
    """The bar's sentence when no answer came in time: the real wait, and the state
    the signals say the turn is in ("No answer after 15.2 s. Waiting for the server…")."""
    text = QCoreApplication.translate("TurnState", "No answer after {seconds} s. {state}…")
    seconds = QLocale().toString(float(waited_s), "f", 1)
    return text.format(seconds=seconds, state=turn_word(state))


def outcome_words(outcome: str) -> str | None:
    """How a turn ended (an Outcome's value, as stored) said as its state: "Stopped",
    "Stopped · cancelled while waiting"; None for a value that is no outcome."""
    if outcome not in set(Outcome):
        return None
    known = Outcome(outcome)
    words = turn_word(OUTCOME_STATES[known])
    kind = FAILURE_KINDS.get(known)
    return f"{words} · {QCoreApplication.translate('TurnState', kind)}" if kind else words
