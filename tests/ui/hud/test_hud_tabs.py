"""Every HUD tab goes through one door, LatencyHud.add_tab (docs/extending.md, "A HUD
tab"): the five made with the HUD, the Race tab with the first race, the Pool tab while
the chat goes to a pool."""

from __future__ import annotations

from typing import Any

import pytest

from client.services.fleet.book import MemberFigures
from client.services.race.column import ColumnFigures
from client.ui.hud import LatencyHud


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    return widget


def _titles(hud: LatencyHud) -> list[str]:
    return [hud.tabs.tabText(i) for i in range(hud.tabs.count())]


def _server(name: str) -> MemberFigures:
    return MemberFigures(name, 3, 120.0, 300.0, wins=2, sent=3, failures=0, in_flight=0)


def test_the_five_tabs_are_there_from_the_start(hud: LatencyHud) -> None:
    assert _titles(hud) == ["Live", "Requests", "Waterfall", "Tier", "Server"]
    views = [hud.live, hud.requests, hud.waterfall, hud.tier, hud.server]
    assert [hud.tabs.widget(i) for i in range(hud.tabs.count())] == views


def test_a_tab_is_added_once_and_at_the_end(hud: LatencyHud) -> None:
    hud.add_tab(hud.tier, "Tier")  # already there: not again
    assert _titles(hud).count("Tier") == 1
    hud.remove_tab(hud.tier)
    hud.add_tab(hud.tier, "Tier")
    assert _titles(hud)[-1] == "Tier" and hud.tabs.count() == 5


def test_the_race_tab_comes_with_the_first_race_and_stays(hud: LatencyHud) -> None:
    column = ColumnFigures("Box A", 200.0, 40.0, None, None, None)
    assert hud.race is None
    hud.show_race([column], bring_forward=True)
    hud.show_race([column])
    assert _titles(hud)[5:] == ["Race"]
    assert hud.tabs.currentWidget() is hud.race


def test_the_pool_tab_shows_while_the_chat_goes_to_a_pool(hud: LatencyHud) -> None:
    hud.show_pool("Boxes", [_server("Box A"), _server("Box B")])
    assert _titles(hud)[5:] == ["Pool"] and hud.pool is not None
    assert hud.pool.table.rowCount() == 2
    hud.show_pool("Boxes", [_server("Box A")])  # renewed after an answer: one tab still
    assert _titles(hud).count("Pool") == 1 and hud.pool.table.rowCount() == 1
    hud.hide_pool()
    assert "Pool" not in _titles(hud)
    hud.hide_pool()  # (no pool, no tab: nothing to take away)
    hud.show_pool("Boxes", [_server("Box A")])
    assert _titles(hud)[-1] == "Pool"
