"""The line under each answer, beside Copy and Timing, as LM Studio and Open WebUI show
it: "0.21 s to first token · 48 tok/s · 312 tokens · fast".

From the answer's figures: a request's RequestMetrics or MetricsRecord (the same field
names), or a continued answer's WholeAnswer (client/services/chat/answer_figures.py),
whose tokens and rate are the whole message's: "... · 312 tokens in 2 parts · fast".
A figure the requests did not produce is left out.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.tiers import Tier
from client.services.chat.answer_figures import AnswerFigures
from client.ui.common.tier_words import tier_name


def footer_text(figures: AnswerFigures | None, parts: int = 1) -> str:
    """parts: how many requests wrote the answer (a Continue adds one)."""
    if figures is None:
        return ""
    locale = QLocale()
    shown: list[str] = []
    if figures.ttft_ms is not None:
        seconds = locale.toString(figures.ttft_ms / 1000, "f", 2)
        shown.append(
            QCoreApplication.translate("AnswerFooter", "{s} s to first token").format(s=seconds)
        )
    if figures.tokens_per_s is not None and figures.tokens_per_s > 0:
        rate = locale.toString(round(figures.tokens_per_s))
        shown.append(QCoreApplication.translate("AnswerFooter", "{n} tok/s").format(n=rate))
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
    return " · ".join(shown)
