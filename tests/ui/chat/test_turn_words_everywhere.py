"""One state, one set of words: every surface that says what a turn is doing or how it
ended (the status line, the message label, the answer footer, the waterfall's rows and
title, the Tier tab, `tachy chat --stages`) says a state with the words of
client/ui/common/turn_words.py, in English and in zh_CN."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from client.core.metrics import RequestMetrics
from client.core.tiers import DEFAULT_THRESHOLDS, Tier
from client.services.chat.session_events import Stage
from client.services.chat.turn_state import (
    OUTCOME_STATES,
    QUEUED_ROW,
    STATE_WORDS,
    WAITING_ROW,
    TurnState,
)
from client.services.hud.hud_model import HudRecord, StageSpan
from client.services.hud.waterfall import WaterfallRow, build_waterfall, shown_states
from client.ui.chat.render.messages.answer_footer import footer_text
from client.ui.chat.render.messages.blocks import ShownMessage
from client.ui.chat.render.messages.labels import state_label
from client.ui.chat.stage_line import waiting_text
from client.ui.common.tier_words import tier_name
from client.ui.common.turn_words import TURN_WORDS, outcome_words, turn_word
from client.ui.hud.tabs.tier_view import TierView
from client.ui.hud.tabs.waterfall_view import row_label

# The row of the waterfall that stands for each state a turn can wait in.
ROWS = {
    TurnState.QUEUED: QUEUED_ROW,
    TurnState.WAITING: WAITING_ROW,
    TurnState.LOADING: Stage.LOADING.value,
    TurnState.READING: Stage.UNDERSTANDING.value,
    TurnState.RETRIEVING: Stage.RETRIEVING.value,
    TurnState.THINKING: Stage.THINKING.value,
    TurnState.ANSWERING: Stage.ANSWERING.value,
}


def test_the_command_line_says_the_window_s_english_words() -> None:
    assert set(STATE_WORDS) == set(TurnState) == set(TURN_WORDS)
    for state in TurnState:
        assert STATE_WORDS[state] == TURN_WORDS[state]  # the same source text


def test_every_surface_says_a_state_with_the_same_words(language: str, qtbot: Any) -> None:
    for state, row in ROWS.items():
        word = turn_word(state)
        assert waiting_text(2000.0, state).startswith(word), state  # the status line
        assert row_label(WaterfallRow(row, 0.0, 1.0, "client")) == word, state
    figures = (("passages", 3), ("tokens", 9))
    counted = WaterfallRow(Stage.RETRIEVING.value, 0.0, 1.0, "client", figures)
    assert row_label(counted).startswith(turn_word(TurnState.RETRIEVING) + " · ")
    # How a turn ended: the message's label and the waterfall's title.
    for outcome, state in OUTCOME_STATES.items():
        words = outcome_words(outcome.value)
        assert words is not None and words.startswith(turn_word(state)), outcome
        message = ShownMessage(1, "assistant", "kept", state=outcome.value)
        assert state_label(message) == ("" if state is TurnState.DONE else words), outcome
    streaming = ShownMessage(1, "assistant", "", state="streaming", thinking="hmm")
    assert state_label(streaming) == turn_word(TurnState.THINKING) + "…"
    streaming.text = "Blue"
    assert state_label(streaming) == turn_word(TurnState.ANSWERING) + "…"
    # The Tier tab: a slow reply's stages are the ones its waterfall shows, and its tier
    # is the word the answer's footer ends with.
    record = HudRecord(
        time=1.0,
        ttft_ms=2500.0,
        headers_ms=1200.0,
        e2el_ms=3000.0,
        stages=[StageSpan("understanding", 0.0, 2500.0), StageSpan("answering", 2500.0, None)],
    )
    states = shown_states(record, 1000.0)
    assert states == (TurnState.WAITING, TurnState.READING, TurnState.ANSWERING)
    rows = [row_label(row) for row in build_waterfall(record).rows if row.state is not None]
    assert rows == [turn_word(state) for state in states]
    quick = replace(record, headers_ms=400.0)  # said before the status line says a state
    assert shown_states(quick, 1000.0) == (TurnState.READING, TurnState.ANSWERING)
    tier = TierView()
    qtbot.addWidget(tier)
    tier.show_reply(record.ttft_ms, DEFAULT_THRESHOLDS, states)
    shown = tier.behaviour_label.text()
    assert all(turn_word(state) in shown for state in states)
    assert turn_word(TurnState.THINKING) not in shown  # it never thought
    assert tier.tier_label.text() == tier_name(Tier.SLOW).upper()
    footer = footer_text(RequestMetrics(ttft_ms=2500.0, tier=Tier.SLOW.value), 1, 2400.0)
    assert footer.endswith(" · " + tier_name(Tier.SLOW))
    assert footer.startswith(turn_word(TurnState.LOADING) + " ")  # the load, as the line said
