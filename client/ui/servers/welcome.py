"""The welcome panel of a new conversation: what runs, what was found, what to try.

It lies over the empty chat, centred in it, and says which server and model the chat
goes to (and its state: cold, loading, warm), which servers answered on this computer's
usual ports, offers "Connect a server…", and three starter prompts as chips, one per
kind of wait (a one-word reply, a long answer, a reasoning question), each with its
question in its tooltip. A click on one sends it. It
hides as soon as the conversation has a message or the user types, and comes back
for the next new conversation. With nothing reachable and no local engine it says
the command that installs one. The facts come from client/services/servers/welcome.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from client.services.servers.welcome import FoundServer, LocalEngineFacts, found_servers, shown_name
from client.ui.common.async_errors import KeptTasks
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.reading_style import BODY_PX, TextSizeFollower, reading_style
from client.ui.common.server_names import shown_name as server_name
from client.ui.common.tab_order import tab_before

if TYPE_CHECKING:
    from client.ui.servers.server_controller import ServerController

LOCAL_MODEL = "SmolLM2-135M"
# (what it shows of the wait, the prompt sent); shown through WelcomePanel.tr.
STARTERS = (
    (
        QT_TRANSLATE_NOOP("WelcomePanel", "A one-word reply"),
        QT_TRANSLATE_NOOP("WelcomePanel", "In one word: what colour is a clear daytime sky?"),
    ),
    (
        QT_TRANSLATE_NOOP("WelcomePanel", "A long answer"),
        QT_TRANSLATE_NOOP(
            "WelcomePanel", "Explain in detail, step by step, how a web browser loads a page."
        ),
    ),
    (
        QT_TRANSLATE_NOOP("WelcomePanel", "A reasoning question"),
        QT_TRANSLATE_NOOP(
            "WelcomePanel",
            "A bat and a ball cost 1.10 together; the bat costs 1.00 more than the ball. "
            "How much is the ball? Think it through.",
        ),
    ),
)
MIN_STARTER_WIDTH = 120  # px: a starter's caption and "…" still show
STARTER_PADDING = 30  # px: the chip's text margins and border (#welcomeStarter in style.qss)
TEXT_WIDTH_PX = 560  # the panel's sentences wrap at about this width (at 100 %)
TITLE_SCALE = 1.6  # the panel's title, of the body text
STATE_POLL_MS = 1000  # the model's state (warm · 29 min left) while the panel shows


class WelcomePanel(QFrame):
    starterChosen = Signal(str)
    connectRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        self.setAccessibleName(self.tr("Welcome"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.title = _label("welcomeTitle", self, self.tr("What would you like to ask?"))
        self.running_label = _label("welcomeRunning", self)
        self.found_label = _label("welcomeFound", self)
        self.install_label = _label("welcomeInstall", self)
        self.install_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.install_label.hide()
        self.connect_button = QPushButton(self.tr("Connect a server…"), self)
        self.connect_button.setObjectName("welcomeConnect")
        self.connect_button.setAccessibleName(self.tr("Connect a server"))
        self.connect_button.clicked.connect(self.connectRequested)
        self.starter_buttons: list[QPushButton] = []
        chips = QHBoxLayout()
        chips.addStretch(1)
        for caption, prompt in STARTERS:
            chips.addWidget(self._starter(self.tr(caption), self.tr(prompt)))
        chips.addStretch(1)
        self.column = QWidget(self)  # the sentences' width, centred in the chat
        column = QVBoxLayout(self.column)
        for label in (self.title, self.running_label, self.found_label, self.install_label):
            label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
            column.addWidget(label)
        column.addSpacing(12)
        try_label = _label("welcomeTry", self, self.tr("Try one:"))
        try_label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(try_label)
        column.addLayout(chips)
        column.addSpacing(12)
        column.addWidget(self.connect_button, 0, Qt.AlignmentFlag.AlignHCenter)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.column, 100)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        title = self.title.font()
        title.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(title)
        TextSizeFollower(self.title, round(BODY_PX * TITLE_SCALE))
        # Each its own: under the app's stylesheet a child keeps the platform's 9 pt.
        texts: list[QWidget] = [*self.findChildren(QLabel), *self.findChildren(QPushButton)]
        for widget in [self, *texts]:
            if widget is not self.title:
                TextSizeFollower(widget)
        reading_style().changed.connect(self.follow_zoom)
        self.follow_zoom()

    def _starter(self, caption: str, prompt: str) -> QPushButton:
        button = StarterButton(caption, self)
        button.setObjectName("welcomeStarter")
        button.setAccessibleName(caption)
        send = self.tr("Send this question")
        button.setToolTip(f"{prompt}\n\n{send}")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda: self.starterChosen.emit(prompt))
        self.starter_buttons.append(button)
        return button

    def follow_zoom(self) -> None:
        """The sentences' width at the reading style's zoom (the text sizes follow it
        with their TextSizeFollower)."""
        self.column.setMaximumWidth(round(TEXT_WIDTH_PX * reading_style().zoom))

    # --- what it says --------------------------------------------------------------
    def show_running(self, server: str, model: str, state: str, is_local: bool) -> None:
        if is_local:
            text = self.tr("Local model {model} · on this computer").format(model=LOCAL_MODEL)
        else:
            text = self.tr("{server} · model {model}").format(
                server=shown_name(server), model=shown_name(model)
            )
        self.running_label.setText(f"{text} · {state}" if state else text)

    def show_starting(self, local: bool = True) -> None:
        """Before a server answers: the local model starting, or a server being asked."""
        if local:
            text = self.tr("Starting the local model {model} on this computer…")
        else:
            text = self.tr("Connecting to the server…")
        self.running_label.setText(text.format(model=LOCAL_MODEL))

    def show_found(
        self, found: list[FoundServer], engine: LocalEngineFacts | None, connected: bool = False
    ) -> None:
        """What answered on this computer's usual ports; `connected`: a server (not the
        local model) is in use, wherever it is: the sentence then says "other"."""
        if found:
            parts = [self._found_text(server) for server in found]
            self.found_label.setText(
                self.tr("Found here: {servers}.").format(servers="; ".join(parts))
            )
        elif connected:
            self.found_label.setText(
                self.tr("No other server answered on this computer's usual ports.")
            )
        else:
            self.found_label.setText(
                self.tr(
                    "No Ollama, vLLM or other OpenAI-compatible server answered on this "
                    "computer's usual ports."
                )
            )
        missing = not found and not connected and engine is not None and not engine.installed
        self.install_label.setVisible(missing)
        if missing and engine is not None:
            self.install_label.setText(
                self.tr("The local model is not installed. Install it with:\n{command}").format(
                    command=engine.install_command
                )
            )

    def _found_text(self, server: FoundServer) -> str:
        kind = (
            "Ollama"
            if server.kind == "Ollama"
            else self.tr("vLLM or another OpenAI-compatible server")
        )
        text = self.tr("{kind} on port {port} with %Ln model(s)", "", server.models)
        return text.format(kind=kind, port=server.port)


class WelcomeController(QObject):
    """Shows the panel in a new, empty conversation and keeps what it says current."""

    def __init__(self, servers: ServerController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.servers, self.page, self.tachy = servers, servers.page, servers.tachy
        window = self.window = servers.window
        # Over the empty chat, centred in it: nothing moves when it goes.
        self.panel = WelcomePanel(window.chat_view)
        self.panel.setGeometry(window.chat_view.rect())
        window.chat_view.installEventFilter(self)
        # Tab reaches the panel where it shows: after the pickers, before the chat.
        tab_before(self.panel.findChildren(QPushButton), window.chat_view)
        self.tasks = KeptTasks()
        self.found: list[FoundServer] = []
        self.engine: LocalEngineFacts | None = None
        self._running: tuple[str, str, bool] | None = None  # server, model, is_local
        self.timer = QTimer(self)
        self.timer.setInterval(STATE_POLL_MS)
        self.timer.timeout.connect(self._show_running)
        self.panel.starterChosen.connect(self._send)
        self.panel.connectRequested.connect(servers.open_add_server)
        servers.serverChanged.connect(self._on_server)
        servers.waitingChanged.connect(lambda _waiting: self._show_running())
        window.composer.textChanged.connect(self.refresh)
        self.page.conversationChanged.connect(lambda _: self.refresh())
        self.page.conversationShown.connect(self.refresh)
        self.page.questionKept.connect(self.refresh)  # the kept question is on screen now
        self.panel.show_starting(local=False)
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.window.chat_view:
            self.panel.setGeometry(self.window.chat_view.rect())
        return False

    def start(self) -> None:
        """Look for servers on this computer (after the first paint, off the wiring)."""
        self.tasks.spawn(self._look_around(), "look for servers")

    async def _look_around(self) -> None:
        from client.services.servers.welcome import local_engine_facts

        self.engine = local_engine_facts()
        self.found = await found_servers()
        self._show_found()

    def _show_found(self) -> None:
        if self.engine is None:
            return  # not looked yet
        connected = self._running is not None and not self._running[2]
        self.panel.show_found(self.found, self.engine, connected)

    def _send(self, prompt: str) -> None:
        self.page.send(prompt)
        self.refresh()

    def _on_server(self, _url: str, _api: str, model: str) -> None:
        choice = self.servers.current
        if choice is not None:
            self._running = (server_name(choice), model, choice.is_local)
        self._show_running()
        self._show_found()

    def _show_running(self) -> None:
        servers = self.servers
        if servers.waiting is not None:  # the chosen server does not answer yet
            self.panel.running_label.setText(servers.reach_bar.sentence())
            return
        if self._running is None:
            self.panel.show_starting(servers.starting_local)
            return
        server, model, is_local = self._running
        self.panel.show_running(server, model, self._state(is_local), is_local)

    def _state(self, is_local: bool) -> str:
        warming = self.tachy.warming
        if warming is not None and warming.warmer.status.state is not None:
            from client.ui.common.status_text import model_state_text

            return model_state_text(warming.warmer.status)
        if is_local:  # the engine keeps its one model loaded once it answers
            return QCoreApplication.translate("StatusText", "warm")
        return ""

    def should_show(self) -> bool:
        window = self.window
        empty = not window.chat_view.keys() and not self.page.busy
        return empty and not window.composer.toPlainText().strip()

    def refresh(self) -> None:
        show = self.should_show()
        self.panel.setVisible(show)
        if show:
            self._show_running()
            self.timer.start()
        else:
            self.timer.stop()

    async def aclose(self) -> None:
        self.timer.stop()
        await self.tasks.aclose()


def _label(name: str, parent: QWidget, text: str = "") -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # server and model names are never HTML
    return label


class StarterButton(QPushButton):
    """A starter prompt on one line, cut at the right with "…" when the chat column is
    narrow: its whole text made the window at least 830 px wide. The tooltip then
    says it whole."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.whole_text = text
        self._tip = ""
        policy = self.sizePolicy()  # a button's own policy never shrinks below its text
        policy.setHorizontalPolicy(QSizePolicy.Policy.Preferred)
        self.setSizePolicy(policy)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), MIN_STARTER_WIDTH), hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()  # of the text shown: add what the "…" cut
        metrics = self.fontMetrics()
        cut = metrics.horizontalAdvance(self.whole_text) - metrics.horizontalAdvance(self.text())
        return QSize(hint.width() + max(cut, 0), hint.height())

    def setToolTip(self, tip: str) -> None:
        self._tip = tip
        super().setToolTip(tip)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        room = self.contentsRect().width() - STARTER_PADDING
        shown = self.fontMetrics().elidedText(self.whole_text, Qt.TextElideMode.ElideRight, room)
        if shown != self.text():
            self.setText(shown)
        whole = shown == self.whole_text
        super().setToolTip(self._tip if whole else f"{self.whole_text}\n\n{self._tip}")
