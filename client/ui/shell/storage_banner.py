"""The banner over the chat that says what happened to the history and where it is.

Shown when the history was damaged (kept aside, readable rows recovered), written by
a newer Tachy (shown read-only), or cannot be saved (the data folder is unusable: the
history lives in memory until quit). Later trouble while saving (a full disk in the
middle of an answer) reuses it through `saving_changed`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from client.services.storage.stores import HistoryProblem, ProblemKind
from client.ui.common.error_text import phrase_text
from client.ui.common.locale_text import number


class StorageBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("storageBanner")
        self.setAccessibleName(self.tr("History warning"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.message_label = QLabel(self)
        self.message_label.setObjectName("storageBannerMessage")
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)  # paths are not markup
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.message_label, 1)
        self.dismiss_button = QPushButton(self.tr("Dismiss"), self)
        self.dismiss_button.setObjectName("storageBannerDismiss")
        self.dismiss_button.setAccessibleName(self.tr("Dismiss the history warning"))
        self.dismiss_button.clicked.connect(self.hide)
        layout.addWidget(self.dismiss_button)
        self._saving_trouble = False
        self.hide()

    def show_problem(self, problem: HistoryProblem) -> None:
        self.message_label.setText(self.sentence(problem))
        self.show()

    def saving_changed(self, reason: str | None) -> None:
        """client.services.storage.full_disk's listener: a write waits for room, or all
        went through."""
        if reason is not None:
            self._saving_trouble = True
            self.message_label.setText(
                self.tr(
                    "Tachy cannot save right now ({reason}). Everything stays on screen "
                    "and is saved as soon as there is room again."
                ).format(reason=reason)
            )
            self.show()
        elif self._saving_trouble:
            self._saving_trouble = False
            self.message_label.setText(
                self.tr("Saving works again: everything kept meanwhile is saved.")
            )

    def sentence(self, problem: HistoryProblem) -> str:
        if problem.kind is ProblemKind.DAMAGED:
            return self.tr(
                "Your history was damaged ({reason}). It was kept as {kept}, and "
                "{rows} readable entries were recovered into a new history."
            ).format(
                reason=phrase_text(problem.reason),
                kept=problem.kept_at,
                rows=number(problem.recovered_rows),
            )
        if problem.kind is ProblemKind.TOO_NEW:
            return self.tr(
                "This history was written by a newer Tachy ({reason}). It is shown "
                "read-only from {path}; nothing you do now is saved. Update Tachy to "
                "keep chatting in it."
            ).format(reason=phrase_text(problem.reason), path=problem.path)
        return self.tr(
            "Nothing is being saved: Tachy cannot write to {folder} ({reason}). Your "
            "conversations are kept in memory until you quit. Fix the folder, or set "
            "TACHY_DATA_DIR to another one, and restart."
        ).format(folder=problem.path.parent, reason=phrase_text(problem.reason))


def attach_storage_banner(above: QWidget, problem: HistoryProblem | None) -> StorageBanner:
    """A banner placed just above `above` in its layout, shown when there is a problem."""
    parent = above.parentWidget()
    banner = StorageBanner(parent)
    layout = parent.layout() if parent is not None else None
    if isinstance(layout, QBoxLayout):
        layout.insertWidget(max(layout.indexOf(above), 0), banner)
    if problem is not None:
        banner.show_problem(problem)
    return banner
