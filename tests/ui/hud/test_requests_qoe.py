"""The Requests view shows Andes' QoE beside TTFT: each request's in its tooltip, and
P50, P5 and n over the requests shown."""

from __future__ import annotations

from typing import Any

from client.ui.hud import LatencyHud
from tests.ui.hud.test_hud import _reply


def test_the_requests_view_shows_qoe_p50_p5_and_n(qtbot: Any) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.tabs.setCurrentWidget(hud.requests)
    hud.show()
    assert hud.requests.qoe_line.text() in ("", "QoE: no answers yet")
    for ttft in (200.0, 300.0):
        _reply(hud, ttft)  # 20 tokens 10 ms apart: ahead of the reader
    _reply(hud, 4000.0)  # three seconds later than the reader expects
    qtbot.waitUntil(lambda: "n 3" in hud.requests.qoe_line.text())
    assert hud.requests.qoe_line.text() == "QoE: P50 1.00 · P5 0.15 · n 3"
    assert "Andes" in hud.requests.qoe_line.toolTip()
    point = hud.requests.points.points()[0]
    tip = hud.requests.point_tip(point.pos().x(), point.pos().y(), point.data())
    assert tip.endswith(", QoE 1.00")
