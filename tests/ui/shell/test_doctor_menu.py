"""Help > Check this machine… shows `tachy doctor`'s report while the chat goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from client.services.doctor.checks import iter_checks
from tests.ui.conftest import until


def test_the_help_menu_shows_the_same_report_as_the_terminal(
    make_app: Any, run: Any, data_dir: Path
) -> None:
    app = make_app()
    menu = app.help_menu
    assert menu.menu.title() == "&Help"
    # The real checks (starting the engine aside: the engine tests cover it).
    menu.checks = lambda: iter_checks(start_engine=False)

    async def check() -> Any:
        menu.check_action.trigger()  # as a click does, inside the running loop
        dialog = menu.dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.summary.text() == "Checking…"
        await until(lambda: dialog.finished_checking, 60)
        return dialog

    dialog = run(check(), timeout_s=70)
    shown = dialog.report.toPlainText().splitlines()
    expected = [c.line() for c in iter_checks(start_engine=False)]
    assert [line.split(":")[0] for line in shown] == [line.split(":")[0] for line in expected]
    assert any(line.startswith("ok    data folder:") for line in shown)
    failed = sum(1 for line in shown if line.startswith("FAIL"))
    summary = dialog.summary.text()
    assert summary == (
        "All checks passed."
        if not failed
        else f"{failed} check{'s' if failed > 1 else ''} failed. Each says how to fix it."
    )
