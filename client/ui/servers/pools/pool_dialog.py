"""Make or change a pool: its name, its servers (the saved ones, ticked, in the listed
order: the failover's order), the model they all serve, and its policy.

Non-modal, like the server dialogs: it answers through `saved` and `removeRequested`;
the pool is checked and stored by services (client/services/fleet/saved_pools.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from client.services.fleet.pool import Policy, PoolMember, ServerPool
from client.services.servers.servers import ServerChoice
from client.ui.common.server_names import shown_name


class PoolDialog(QDialog):
    saved = Signal(object, str)  # ServerPool, the name it had ("" for a new pool)
    removeRequested = Signal(str)  # the saved name

    def __init__(
        self,
        servers: Sequence[ServerChoice],
        pool: ServerPool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("poolDialog")
        self.setWindowTitle(self.tr("Edit pool") if pool else self.tr("New pool"))
        self.original = pool.name if pool else ""
        self._servers = list(servers)
        form = QFormLayout(self)
        self.name_edit = QLineEdit(pool.name if pool else "", self)
        self.member_list = QListWidget(self)
        self.member_list.setObjectName("poolMembers")
        chosen = {m.choice.key for m in pool.members} if pool else set()
        for server in self._servers:
            item = QListWidgetItem(shown_name(server), self.member_list)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            ticked = server.key in chosen
            item.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            item.setToolTip(server.url)
        self.model_edit = QLineEdit(pool.model if pool else "", self)
        self.model_edit.setPlaceholderText(self.tr("the model every server serves"))
        self.policy_picker = QComboBox(self)
        for policy, shown in (
            (Policy.FAILOVER, self.tr("Failover: the first that answers")),
            (Policy.LEAST_LOADED, self.tr("Least loaded: the least busy server")),
            (Policy.HEDGED, self.tr("Hedged: another server when one is slow")),
        ):
            self.policy_picker.addItem(shown, policy.value)
        if pool is not None:
            self.policy_picker.setCurrentIndex(self.policy_picker.findData(pool.policy.value))
        self.tied_box = QCheckBox(
            self.tr("Count a llama.cpp server reading the question as started")
        )
        self.tied_box.setChecked(bool(pool and pool.tied))
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        form.addRow(self.tr("&Name"), self.name_edit)
        form.addRow(self.tr("&Servers"), self.member_list)
        form.addRow(self.tr("&Model"), self.model_edit)
        form.addRow(self.tr("&Policy"), self.policy_picker)
        form.addRow(self.tied_box)
        for field in (self.name_edit, self.member_list, self.model_edit, self.policy_picker):
            label = form.labelForField(field)
            if isinstance(label, QLabel):
                field.setAccessibleName(label.text().replace("&", ""))
        form.addRow(self.error_label)
        if pool is not None:
            remove = QPushButton(self.tr("Remove this pool…"), self)
            remove.setObjectName("removePoolButton")
            remove.clicked.connect(lambda: self.removeRequested.emit(self.original))
            form.addRow(remove)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def show_error(self, sentence: str) -> None:
        self.error_label.setText(sentence)

    def pool(self) -> ServerPool:
        """What the form says, as a pool (services check it when it is saved)."""
        members = tuple(
            PoolMember(server)
            for row, server in enumerate(self._servers)
            if self.member_list.item(row).checkState() == Qt.CheckState.Checked
        )
        return ServerPool(
            self.name_edit.text().strip(),
            members,
            Policy(self.policy_picker.currentData()),
            self.model_edit.text().strip(),
            self.tied_box.isChecked(),
        )

    def _save(self) -> None:
        self.saved.emit(self.pool(), self.original)
