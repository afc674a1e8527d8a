"""The line under each answer, beside Copy and Timing, as LM Studio and Open WebUI show
it: "0.21 s to first token · 48 tok/s · 312 tokens · fast".

From the request's metrics: a live answer's RequestMetrics or a stored MetricsRecord
(the same field names). A figure the request did not produce is left out.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.tiers import Tier
from client.ui.common.tier_words import tier_name


class AnswerFigures(Protocol):
    @property
    def ttft_ms(self) -> float | None: ...
    @property
    def tokens_per_s(self) -> float | None: ...
    @property
    def output_tokens(self) -> int | None: ...
    @property
    def tier(self) -> str | None: ...


def footer_text(figures: AnswerFigures | None) -> str:
    if figures is None:
        return ""
    locale = QLocale()
    parts = []
    if figures.ttft_ms is not None:
        seconds = locale.toString(figures.ttft_ms / 1000, "f", 2)
        parts.append(
            QCoreApplication.translate("AnswerFooter", "{s} s to first token").format(s=seconds)
        )
    if figures.tokens_per_s is not None and figures.tokens_per_s > 0:
        rate = locale.toString(round(figures.tokens_per_s))
        parts.append(QCoreApplication.translate("AnswerFooter", "{n} tok/s").format(n=rate))
    if figures.output_tokens:
        count = locale.toString(figures.output_tokens)
        parts.append(QCoreApplication.translate("AnswerFooter", "{n} tokens").format(n=count))
    if figures.tier in {t.value for t in Tier}:
        parts.append(tier_name(Tier(figures.tier)))
    return " · ".join(parts)
