"""One window per history: a second `tachy` brings the running window to the front.

The first instance listens on a local socket (QLocalServer) named after the data
folder, so two histories (TACHY_DATA_DIR) still get a window each. A second start
connects, asks the first to come forward, and exits 0. A socket left by a killed
instance answers no one: it is removed and claimed again.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

log = logging.getLogger("tachy.ui")

RAISE = b"raise\n"
CONNECT_TIMEOUT_MS = 1000


class SingleInstance(QObject):
    raised = Signal()  # a second start asked this window to come forward

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.newConnection.connect(self._on_connection)
        self._window: QWidget | None = None
        self._sockets: list[QLocalSocket] = []

    def claim(self) -> bool:
        """True: this is the only instance (now listening). False: another one runs
        and was asked to bring its window forward."""
        if self.server.listen(self.name):
            return True
        if self._ask_running_to_raise():
            return False
        QLocalServer.removeServer(self.name)  # left by an instance that was killed
        if not self.server.listen(self.name):
            log.warning(
                "single instance: cannot listen on %s: %s", self.name, self.server.errorString()
            )
        return True

    def _ask_running_to_raise(self) -> bool:
        socket = QLocalSocket(self)
        socket.connectToServer(self.name)
        if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
            return False
        socket.write(RAISE)
        socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
        socket.disconnectFromServer()
        return True

    def bring_forward(self, window: QWidget) -> None:
        """The window a second start brings to the front."""
        self._window = window

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            self._sockets.append(socket)
            # Methods, not lambdas holding self: a lambda kept this object alive until
            # its socket was deleted, which then deleted it mid-deletion (a crash).
            socket.readyRead.connect(self._on_message)
            socket.disconnected.connect(self._forget)

    def _on_message(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket) and bytes(socket.readAll().data()).startswith(
            RAISE.strip()
        ):
            self._raise_window()

    def _forget(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket) and socket in self._sockets:
            self._sockets.remove(socket)
            socket.deleteLater()

    def _raise_window(self) -> None:
        window = self._window
        if window is not None:
            window.showNormal() if window.isMinimized() else window.show()
            window.raise_()
            window.activateWindow()
        log.info("a second start brought the window to the front")
        self.raised.emit()

    def close(self) -> None:
        self.server.close()
        for socket in list(self._sockets):  # a second start still connected
            socket.abort()
