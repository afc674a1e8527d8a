"""What the stage line says while an answer is awaited (the product's waiting rules).

Before the first token: nothing for the first 300 ms; a typing indicator from 300 ms;
from 1 s the turn's state (client/services/chat/turn_state.py, said with the one set
of words of client/ui/common/turn_words.py) and the time waited. A reasoning model's
thinking is said at once. The times come from the request's
own stamps (RequestTimeline stages), so the line tells the truth about the wait; the
time left comes from the server's prefill progress, or for a model being loaded from
how long its loads took before (client/services/chat/loading_stage.py).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.events import Prefill
from client.core.timeline import RequestTimeline
from client.services.chat.loading_stage import EXPECTED_MS
from client.services.chat.turn_state import TurnState, stage_state
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.turn_words import turn_word

TYPING_AFTER_MS = 300
STAGE_AFTER_MS = 1000

TYPING = QT_TRANSLATE_NOOP("Waiting", "Typing…")
# The reading state of a request that carries images (client/services/images/cost.py).
READING_IMAGE = QT_TRANSLATE_NOOP("TurnState", "Reading your question and image")
# Said at once, without the typing indicator first: the server is visibly at work.
AT_ONCE = (TurnState.THINKING, TurnState.ANSWERING)


def waiting_text(
    elapsed_ms: float,
    state: TurnState | str | None,
    prefill: Prefill | None = None,
    seconds_left: float | None = None,
    with_image: bool = False,
) -> str:
    """The stage line for a request waiting `elapsed_ms` for its first answer token, in
    `state` (a TurnState, or a timeline stage's name; None: reading the question);
    `prefill` is the server's latest prompt progress, `seconds_left` the rest of it."""
    state = _as_state(state)
    if state not in AT_ONCE:
        if elapsed_ms < TYPING_AFTER_MS:
            return ""
        if elapsed_ms < STAGE_AFTER_MS:
            # Typing only once the server took the question up (its headers or a byte).
            typing = state is TurnState.READING
            return QCoreApplication.translate("Waiting", TYPING) if typing else ""
    words = turn_word(state)
    if with_image and state is TurnState.READING:
        words = QCoreApplication.translate("TurnState", READING_IMAGE)
    if prefill is not None and prefill.to_compute and state is TurnState.READING:
        return _progress_text(words, prefill, seconds_left)
    seconds = QLocale().toString(elapsed_ms / 1000, "f", 1)
    text = QCoreApplication.translate("Waiting", "{stage}… {seconds} s").format(
        stage=words, seconds=seconds
    )
    if state is TurnState.LOADING and seconds_left is not None and seconds_left > 0:
        return _with_time_left(text, seconds_left)
    return text


def stalled_text(timeline: RequestTimeline, at_ns: int) -> str:
    """Mid-answer, no token for a while (TurnState.STALLED): "No token for 6 s…"."""
    last = timeline.last_token_ns
    seconds = math.floor((at_ns - last) / 1e9) if last is not None else 0
    text = QCoreApplication.translate("Waiting", "No token for {seconds} s…")
    return text.format(seconds=QLocale().toString(seconds))


def _as_state(state: TurnState | str | None) -> TurnState:
    if isinstance(state, TurnState):
        return state
    if state is None:
        return TurnState.READING
    known = stage_state(state)
    if known is not None:
        return known
    return TurnState(state) if state in set(TurnState) else TurnState.READING


def seconds_left(timeline: RequestTimeline, at_ns: int) -> float | None:
    """The wait's time left: the prefill's at the server's rate, or the model's load
    by the time its loads took before (None when not known, or already past it)."""
    stage = timeline.stages[-1] if timeline.stages else None
    if stage is None or stage.name != "loading":
        return timeline.prefill_seconds_left(at_ns)
    expected = (stage.counts or {}).get(EXPECTED_MS)
    if not isinstance(expected, int | float):
        return None
    left = expected / 1000 - (at_ns - stage.start_ns) / 1e9
    return left if left > 0 else None


def _progress_text(words: str, prefill: Prefill, seconds_left: float | None) -> str:
    locale = QLocale()
    text = QCoreApplication.translate(
        "Waiting", "{stage}… {percent} % ({done} / {total} tokens)"
    ).format(
        stage=words,
        percent=locale.toString(math.floor(prefill.fraction * 100)),
        done=locale.toString(prefill.computed),
        total=locale.toString(prefill.to_compute),
    )
    if seconds_left is None or prefill.fraction >= 1.0:
        return text
    return _with_time_left(text, seconds_left)


def _with_time_left(text: str, seconds_left: float) -> str:
    return QCoreApplication.translate("Waiting", "{progress}, about {seconds} s left").format(
        progress=text, seconds=QLocale().toString(max(math.ceil(seconds_left), 1))
    )
