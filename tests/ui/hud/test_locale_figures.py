"""Figures in the window follow QLocale (grouping, decimal point), and rows that carry
figures are translated with the figures filled in: German writes 1.400 and 60,0, the
Chinese window says the waterfall's counted rows in Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from client.backends.kinds.llamacpp.timings import DRAFTS_ACCEPTED, PROMPT_CACHED
from client.services.hud.hud_model import RETRIEVING_COUNTED, HudRecord, StageSpan
from client.services.hud.server_stats import ServerSnapshot
from client.services.hud.waterfall import (
    APPROVAL_ROW,
    ARGUMENTS_ROW,
    MODEL_CALL_ROW,
    NOT_RUN_ROW,
    QUESTION_READ,
    QUESTION_READ_TOKENS,
    RESULTS_READ_ROW,
    RUN_ERROR_ROW,
    RUN_ROW,
    TOOL_SERVERS_ROW,
)
from client.services.images.cost import IMAGES_COUNTED, IMAGES_WITH_TOKENS
from client.ui.common.locale_text import clock, number, percent, short_number, size_text
from client.ui.hud import LatencyHud
from client.ui.hud.tabs.server_view import ServerView
from client.ui.hud.tabs.waterfall_view import CALL_LABELS, COUNTED_LABELS
from tests.ui.conftest import ENGLISH


@pytest.fixture
def german(qapp: QApplication) -> Iterator[None]:
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    yield
    QLocale.setDefault(ENGLISH)


def _record() -> HudRecord:
    timings = {"prompt_ms": 60.0, "prompt_n": 93, "cache_n": 1400, "predicted_ms": 1234.5}
    return HudRecord(
        time=1_800_000_000.0,
        model="m",
        ttft_ms=1500.4,
        e2el_ms=2800.0,
        outcome="complete",
        stages=[StageSpan("retrieving", 1.0, 9.0, (("passages", 3), ("tokens", 1200)))],
        server_timings={"llamacpp": {**timings, "draft_n": 2048, "draft_n_accepted": 1999}},
    )


def _rows(hud: LatencyHud) -> list[str]:
    return hud.waterfall.row_texts()


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    return widget


def test_the_counted_rows_are_the_models_templates() -> None:
    assert COUNTED_LABELS == (
        RETRIEVING_COUNTED,
        PROMPT_CACHED,
        DRAFTS_ACCEPTED,
        IMAGES_COUNTED,
        IMAGES_WITH_TOKENS,
        QUESTION_READ,
        QUESTION_READ_TOKENS,
    )
    assert CALL_LABELS == (
        TOOL_SERVERS_ROW,
        MODEL_CALL_ROW,
        RESULTS_READ_ROW,
        ARGUMENTS_ROW,
        APPROVAL_ROW,
        RUN_ROW,
        RUN_ERROR_ROW,
        NOT_RUN_ROW,
    )


def test_figures_follow_the_locale(german: None) -> None:
    assert number(1234567) == "1.234.567" and number(1234.5, 1) == "1.234,5"
    assert short_number(0.5) == "0,5" and short_number(3.0) == "3" and number(None) == "–"
    assert percent(0.123) == "12,3 %"
    assert size_text(1_300_000_000) == "1,3 GB" and size_text(271_000_000) == "271 MB"
    assert clock(0.0).count(":") == 2  # hours, minutes and seconds in the locale's order


def test_the_waterfall_writes_its_figures_in_the_locale(german: None, hud: LatencyHud) -> None:
    hud.show_waterfall(_record())
    rows = _rows(hud)
    assert "server: prompt 1.400 cached + 93 computed @ 1.440,4 ms" in rows
    assert "server: 2.048 drafted, 1.999 accepted @ 1.500,4 ms" in rows
    assert "Searching your notes · 3 passages, 1.200 tokens 8,0 ms" in rows
    assert "client TTFT 1.500,4 ms" in hud.waterfall.caption.text()


def test_in_chinese_the_counted_rows_are_chinese(chinese: None, hud: LatencyHud) -> None:
    hud.show_waterfall(_record())
    rows = " | ".join(_rows(hud))
    for english in ("cached", "computed", "drafted", "accepted", "passages", "tokens", "server"):
        assert english not in rows, rows
    for figure in ("1,400", "93", "2,048", "1,999", "1,200"):
        assert figure in rows
    caption = hud.waterfall.caption.text()
    assert "complete" not in caption and "完成" in caption, caption


def test_the_server_view_writes_its_figures_in_the_locale(german: None, qtbot: Any) -> None:
    view = ServerView()
    qtbot.addWidget(view)
    snapshot = ServerSnapshot(
        kind="llamacpp",
        running=2.0,
        kv_cache_use=0.125,
        ttft_p50_ms=1234.0,
        ttft_p95_ms=2345.0,
        ttft_n=1500,
        decode_tokens_per_s=1234.56,
        total_slots=4,
        busy_slots=1,
        slot_ctx=8192,
    )
    view.show_snapshot(snapshot)
    assert view.figures["kv cache"].text() == "12,5 %"
    assert view.figures["server TTFT"].text() == "P50 1.234 ms · P95 2.345 ms (n=1.500)"
    assert view.figures["decode tokens/s"].text() == "1.234,6"
    assert view.figures["busy slots"].text().startswith("1 / 4 · 8.192")


def test_the_tier_thresholds_are_written_in_the_locale(german: None, qtbot: Any) -> None:
    from client.ui.hud.tabs.tier_view import TierView

    view = TierView()
    qtbot.addWidget(view)
    assert [edit.text() for edit in view.edits][-1] == "1.000 ms"
