"""The server view for a vLLM: every figure it exports, its name and version, the last
minute's TTFT beside the lifetime one, and no Ollama table (fixtures: a real vLLM 0.32's
/metrics, tests/services/hud/fixtures)."""

from __future__ import annotations

from typing import Any

from client.backends.kinds.vllm.metrics import parse_vllm_metrics
from client.services.hud.server_stats import ServerSnapshot
from client.ui.hud.tabs.server_view import ServerView
from tests.services.hud.test_server_stats import VLLM_AFTER, VLLM_BEFORE


def _view(qtbot: Any) -> ServerView:
    view = ServerView()
    qtbot.addWidget(view)
    return view


def _vllm_snapshot() -> ServerSnapshot:
    before = parse_vllm_metrics(VLLM_BEFORE, "smollm2")
    snap = parse_vllm_metrics(VLLM_AFTER, "smollm2", before.counters, elapsed_s=10.0)
    snap.version = "0.32.0"
    snap.recent_ttft_p50_ms, snap.recent_ttft_p95_ms = 55.0, 462.5
    snap.recent_ttft_n, snap.recent_s = 3, 60.5
    return snap


def test_a_vllm_shows_every_figure_it_exports(qtbot: Any) -> None:
    view = _view(qtbot)
    view.set_server("http://127.0.0.1:8000", "openai")
    view.show_snapshot(_vllm_snapshot())
    text = {name: label.text() for name, label in view.figures.items()}
    assert view.status.text().startswith("vLLM 0.32.0 · updated")
    assert text["prompt tokens/s"] == "129.3" and text["decode tokens/s"] == "1.5"
    assert text["prompt cache hits"] == "39.2 %"  # 768 of 1,961 prompt tokens
    assert text["engine"] == "awake"
    assert text["server TTFT, last minute"] == "P50 55 ms · P95 462 ms (n=3)"
    assert text["server TTFT"].endswith("(n=22)")
    assert view.models.isHidden()  # Ollama's loaded-model table does not apply
    assert view.figures["busy slots"].isHidden()  # llama.cpp's slots, neither
    assert not view.figures["server TTFT, last minute"].isHidden()


def test_a_quiet_minute_and_a_sleeping_engine_are_said(qtbot: Any) -> None:
    view = _view(qtbot)
    snap = _vllm_snapshot()
    snap.recent_ttft_p50_ms = snap.recent_ttft_p95_ms = None
    snap.recent_ttft_n, snap.engine_state = 0, "weights_offloaded"
    view.show_snapshot(snap)
    assert view.figures["server TTFT, last minute"].text() == "no request in the last minute"
    assert view.figures["engine"].text() == "asleep: weights offloaded"


def test_the_ollama_table_and_each_servers_rows_show_where_they_apply(qtbot: Any) -> None:
    view = _view(qtbot)
    assert view.models.isHidden()  # no server chosen yet
    view.set_server("http://127.0.0.1:11434", "ollama")
    assert not view.models.isHidden()
    view.show_snapshot(ServerSnapshot("ollama"))
    assert not view.models.isHidden() and view.figures["running"].isHidden()
    view.show_snapshot(ServerSnapshot("llamacpp", running=1))
    assert view.models.isHidden() and view.figures["server TTFT"].isHidden()
    assert not view.figures["running"].isHidden()
    # A row the server left empty is not shown (no column of "–"), whatever the server.
    assert view.figures["busy slots"].isHidden()
    view.show_snapshot(ServerSnapshot("", error="The server's /metrics answered HTTP 500."))
    shown = [name for name, label in view.figures.items() if not label.isHidden()]
    assert shown == ["engine"] and "HTTP 500" in view.status.text()
