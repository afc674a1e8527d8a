"""A pool made in the window: ticked saved servers and a policy, listed in the server
picker, chosen like a server; its answer's footer names the server that gave it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget

from client.lab import LabServer, scenario_from_dict
from client.services.fleet.pool import POOL_API, Policy
from client.services.fleet.pool_backend import PoolBackend
from tests.ui.conftest import last_answer_text, until

DIALS: dict[str, Any] = {"ttft": 20, "tpot_ms": 2, "output_tokens": 6}


def test_a_pool_is_made_chosen_and_its_answer_names_its_server(make_app: Any, run: Any) -> None:
    refusing = LabServer(scenario_from_dict({**DIALS, "fault": {"kind": "queue_full"}}))
    answering = LabServer(scenario_from_dict(DIALS))
    first, second = run(refusing.start()), run(answering.start())
    try:
        app = make_app(first)
        run(app.servers._save_server("Box A", first, "ollama", ""))
        run(app.servers._save_server("Box B", second, "ollama", ""))
        app.pools.open_dialog(None)
        dialog = app.pools.dialog
        names = [dialog.member_list.item(i).text() for i in range(dialog.member_list.count())]
        for row, name in enumerate(names):
            if name in ("Box A", "Box B"):
                dialog.member_list.item(row).setCheckState(Qt.CheckState.Checked)
        dialog.name_edit.setText("Both boxes")
        dialog.model_edit.setText("tachy-lab")
        dialog.policy_picker.setCurrentIndex(dialog.policy_picker.findData("failover"))
        bar = app.window.server_bar

        async def save_and_choose() -> None:
            dialog._save()
            await until(lambda: not dialog.isVisible())
            await until(lambda: any(c.api == POOL_API for c in bar.choices))
            index = next(i for i, c in enumerate(bar.choices) if c.api == POOL_API)
            bar.server_picker.setCurrentIndex(index)  # as the user picks it
            await until(lambda: isinstance(app.page.session.routes[0].backend, PoolBackend))

        run(save_and_choose())
        saved = app.tachy.pools.get("Both boxes")
        assert saved is not None and saved.policy is Policy.FAILOVER
        assert [m.name for m in saved.members] == ["Box A", "Box B"]
        assert "Both boxes" in bar.server_picker.currentText()

        async def ask() -> None:
            app.page.send("Hi")
            await until(lambda: not app.page.busy and "from Box B" in footer(app))

        run(ask())
        assert last_answer_text(app.window.chat_view)
        assert refusing.stats.requests >= 1 and answering.stats.completed >= 1
        table = app.hud.findChild(QTableWidget, "poolTable")  # the HUD's Pool tab
        rows = {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}
        assert rows == {"Box A": "0", "Box B": "1"}  # answers given by each
    finally:
        run(refusing.stop())
        run(answering.stop())


def footer(app: Any) -> str:
    view = app.window.chat_view
    return view.toPlainText()
