"""Help > Check this machine…: the report of `tachy doctor`, in a window.

The checks block (the local engine's start takes seconds), so they run on a worker
thread and each line is added on the loop as it is done. The dialog is not modal: the
chat goes on meanwhile. The report lines are the terminal's, in the window's language
(ui/doctor_text.py).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Iterator

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from client.services.doctor.checks import Check, Status, iter_checks
from client.services.doctor.last_answer import LastAnswer
from client.ui.shell.doctor_text import check_line


class DoctorDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("doctorDialog")
        self.setWindowTitle(self.tr("Check this machine"))
        self.resize(760, 420)
        layout = QVBoxLayout(self)
        self.summary = QLabel(self.tr("Checking…"), self)
        self.summary.setObjectName("doctorSummary")
        layout.addWidget(self.summary)
        self.report = QPlainTextEdit(self)
        self.report.setObjectName("doctorReport")
        self.report.setAccessibleName(self.tr("Check report"))
        self.report.setReadOnly(True)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.report, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)
        self.checks: list[Check] = []
        self.finished_checking = False

    def add(self, check: Check) -> None:
        self.checks.append(check)
        self.report.appendPlainText(check_line(check))

    def done_checking(self, error: str | None = None) -> None:
        self.finished_checking = True
        failed = sum(1 for c in self.checks if c.status is Status.FAIL)
        if error is not None:
            self.summary.setText(self.tr("The checks stopped: {error}").format(error=error))
        elif failed:
            self.summary.setText(
                self.tr("%Ln check(s) failed. Each says how to fix it.", "", failed)
            )
        else:
            self.summary.setText(self.tr("All checks passed."))


Checks = Callable[[], Iterable[Check]]


def check_in_background(dialog: DoctorDialog, checks: Checks = iter_checks) -> threading.Thread:
    """Run the checks on a thread; each result reaches the dialog on the loop."""
    loop = asyncio.get_running_loop()

    def deliver(step: Callable[..., None], *args: object) -> None:
        try:
            loop.call_soon_threadsafe(_unless_closed, step, *args)
        except RuntimeError:  # the app quit while a check ran
            pass

    def work() -> None:
        try:
            for check in checks():
                deliver(dialog.add, check)
        except Exception as error:  # a check's bug: said in the dialog, never a crash
            deliver(dialog.done_checking, str(error))
            return
        deliver(dialog.done_checking)

    thread = threading.Thread(target=work, name="tachy-doctor", daemon=True)
    thread.start()
    return thread


def _with_last_answer(answers: LastAnswer, checks: Checks) -> Checks:
    """The root's last answer (client/services/doctor/last_answer.py), then the machine's."""

    def every() -> Iterator[Check]:
        yield answers.check()
        yield from checks()

    return every


def _unless_closed(step: Callable[..., None], *args: object) -> None:
    try:
        step(*args)
    except RuntimeError:  # the dialog was closed and deleted meanwhile
        pass


class HelpMenu:
    """The window's Help menu (Help > Check this machine…)."""

    def __init__(
        self, window: QMainWindow, checks: Checks = iter_checks, answers: LastAnswer | None = None
    ) -> None:
        self.window = window
        self.checks = checks if answers is None else _with_last_answer(answers, checks)
        self.menu = window.menuBar().addMenu(QCoreApplication.translate("HelpMenu", "&Help"))
        self.menu.setObjectName("helpMenu")
        self.check_action = self.menu.addAction(
            QCoreApplication.translate("HelpMenu", "Check this machine…")
        )
        self.check_action.setObjectName("checkMachineAction")
        self.check_action.triggered.connect(self.show_checks)
        self.dialog: DoctorDialog | None = None
        from client.ui.shell.help_dialogs import AboutDialog, ShortcutsDialog

        keys = QCoreApplication.translate("HelpMenu", "Keyboard shortcuts")
        self.shortcuts_action = self.menu.addAction(keys)
        self.shortcuts_action.setObjectName("shortcutsAction")
        self.shortcuts_action.triggered.connect(lambda: ShortcutsDialog(window).show())
        self.about_action = self.menu.addAction(
            QCoreApplication.translate("HelpMenu", "About Tachy")
        )
        self.about_action.setObjectName("aboutAction")
        self.about_action.triggered.connect(lambda: AboutDialog(window).show())

    def show_checks(self) -> DoctorDialog:
        dialog = DoctorDialog(self.window)
        self.dialog = dialog
        dialog.show()
        check_in_background(dialog, self.checks)
        return dialog
