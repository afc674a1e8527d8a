"""The line under each answer, beside Copy and Timing, as LM Studio and Open WebUI show
it: "0.21 s to first token · 48 tok/s average · QoE 1.00 · 312 tokens · fast" (QoE:
Andes', for a reader at 6 tokens a second, client/core/qoe.py); an answer whose request
waited for its model to load says so first, with the status line's words ("Loading the model
2.4 s · 2.61 s to first token ...", client/ui/common/turn_words.py).

From the answer's figures: a request's RequestMetrics or MetricsRecord (the same field
names), or a continued answer's WholeAnswer (client/services/chat/answer_figures.py),
whose tokens and rate are the whole message's: "... · 312 tokens in 2 parts · fast".
A figure the requests did not produce is left out. Last, what type-ahead saved the
question's request: "... · question read while typing: 1,180 tokens, saved about 0.9 s".

A turn that called tools adds its share in tools, "2.3 s in all, 0.4 s in tools (17%)":
its tool servers' start and the runs (client/services/tools/call_records.py, the HUD's
share too), the wait for the user's approval apart, never counted. The live turn's comes
from its records (client/ui/tools/tool_turn_view.py), a reopened answer's from those
stored with its stages (services/chat/answer_figures.py stored_tool_time).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.tiers import Tier
from client.services.chat.answer_figures import (
    AnswerFigures,
    QuestionRead,
    StageRecorded,
    WholeAnswer,
    stored_tool_time,
)
from client.services.chat.turn_state import TurnState
from client.services.tools.call_records import ToolTime
from client.ui.common.tier_words import tier_name
from client.ui.common.turn_words import turn_word

APPROVAL_SHOWN_MS = 50.0  # a shorter wait for the user's yes goes unsaid (always allowed)


def footer_text(
    figures: AnswerFigures | None, parts: int = 1, loading_ms: float | None = None
) -> str:
    """parts: how many requests wrote the answer (a Continue adds one); loading_ms: how
    long its first request waited for the model to load (None: it did not)."""
    if figures is None:
        return ""
    locale = QLocale()
    shown: list[str] = []
    if loading_ms is not None:
        loaded = QCoreApplication.translate("AnswerFooter", "{state} {s} s")
        seconds = locale.toString(loading_ms / 1000, "f", 1)
        shown.append(loaded.format(state=turn_word(TurnState.LOADING), s=seconds))
    if figures.ttft_ms is not None:
        seconds = locale.toString(figures.ttft_ms / 1000, "f", 2)
        shown.append(
            QCoreApplication.translate("AnswerFooter", "{s} s to first token").format(s=seconds)
        )
    if figures.tokens_per_s is not None and figures.tokens_per_s > 0:
        rate = locale.toString(round(figures.tokens_per_s))
        shown.append(QCoreApplication.translate("AnswerFooter", "{n} tok/s average").format(n=rate))
    if figures.qoe is not None:  # Andes' QoE for a reader at 6 tokens/s (core/qoe.py)
        score = locale.toString(figures.qoe, "f", 2)
        shown.append(QCoreApplication.translate("AnswerFooter", "QoE {q}").format(q=score))
    if figures.output_tokens:
        count = locale.toString(figures.output_tokens)
        words = (
            QCoreApplication.translate("AnswerFooter", "{n} tokens in {parts} parts")
            if parts > 1
            else QCoreApplication.translate("AnswerFooter", "{n} tokens")
        )
        shown.append(words.format(n=count, parts=locale.toString(parts)))
    if figures.tier in {t.value for t in Tier}:
        shown.append(tier_name(Tier(figures.tier)))
    if isinstance(figures, WholeAnswer) and figures.question_read is not None:
        shown.append(question_read_text(figures.question_read))
    return " · ".join(shown)


def question_read_text(read: QuestionRead) -> str:
    """ "question read while typing: 1,180 tokens, saved about 0.9 s" (the server's counts)."""
    locale = QLocale()
    tokens = locale.toString(read.tokens)
    saved_ms = read.saved_ms
    if saved_ms is None:
        words = QCoreApplication.translate(
            "AnswerFooter", "question read while typing: {tokens} tokens"
        )
        return words.format(tokens=tokens)
    words = QCoreApplication.translate(
        "AnswerFooter", "question read while typing: {tokens} tokens, saved about {s} s"
    )
    return words.format(tokens=tokens, s=locale.toString(saved_ms / 1000, "f", 1))


def stored_share_text(requests: Sequence[StageRecorded]) -> str:
    """A stored answer's share (a reopened conversation), from its requests' records."""
    return tool_share_words(stored_tool_time(requests))


def tool_share_words(spent: ToolTime | None) -> str:
    """The share's words; "" for a turn that called no tool."""
    if spent is None:
        return ""
    locale = QLocale()
    text = QCoreApplication.translate(
        "ToolTurnView", "{whole} s in all, {seconds} s in tools ({percent}%)"
    ).format(
        whole=locale.toString(spent.whole_ms / 1e3, "f", 1),
        seconds=locale.toString(spent.tools_ms / 1e3, "f", 1),
        percent=locale.toString(round(100 * spent.share)),
    )
    if spent.approval_ms < APPROVAL_SHOWN_MS:
        return text
    waited = QCoreApplication.translate(
        "ToolTurnView", "{seconds} s waiting for your approval, not counted"
    )
    return f"{text} · {waited.format(seconds=locale.toString(spent.approval_ms / 1e3, 'f', 1))}"
