"""A turn with tools in the chat: the approval card above the composer, the status line's
"Using add… 1.2 s" / "Waiting for your approval", and the footer's share in tools.

    view = ToolTurnView(window, page, tachy.turn_tools)   # the shell wires it once

The card asks about one complete call (the loop asks only once its arguments are
whole): Allow once, Always allow this tool, Deny. Stop or Esc cancels the turn's task,
which takes the question away (the card hides) and keeps everything that arrived.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QLocale, QObject, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from client.core.timeline import now_ns
from client.services.chat.generation import Generation
from client.services.chat.tool_step import RunningTool
from client.services.chat.turn_state import TurnState
from client.services.tools.approval import ApprovalChoice
from client.services.tools.call_records import tool_time
from client.services.tools.loop import ApprovalAsk
from client.services.tools.turn_tools import TurnTools
from client.ui.chat.render.messages.answer_footer import tool_share_words
from client.ui.common.turn_words import turn_word

if TYPE_CHECKING:
    from client.ui.chat.chat_page import ChatPage
    from client.ui.chat.chat_window import ChatWindow

TICK_MS = 100
ARGUMENTS_CHARS = 300  # shown on the card; the tooltip has them all
MESSAGE_CHARS = 60  # of a server's progress message, on the status line


class ApprovalCard(QFrame):
    """One call to allow or deny; `chosen` resolves the pending ask."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        column = QVBoxLayout(self)
        self.question = QLabel(self)
        self.question.setObjectName("approvalQuestion")
        self.question.setTextFormat(Qt.TextFormat.PlainText)  # a tool's name is not HTML
        self.arguments = QLabel(self)
        self.arguments.setObjectName("approvalArguments")
        self.arguments.setTextFormat(Qt.TextFormat.PlainText)
        self.arguments.setWordWrap(True)
        row = QHBoxLayout()
        self.allow = QPushButton(self.tr("Allow once"), self)
        self.allow.setObjectName("approvalAllow")
        self.always = QPushButton(self.tr("Always allow this tool"), self)
        self.always.setObjectName("approvalAlways")
        self.deny = QPushButton(self.tr("Deny"), self)
        self.deny.setObjectName("approvalDeny")
        for button in (self.allow, self.always, self.deny):
            row.addWidget(button)
        row.addStretch(1)
        column.addWidget(self.question)
        column.addWidget(self.arguments)
        column.addLayout(row)
        self._pending: asyncio.Future[ApprovalChoice] | None = None
        self.allow.clicked.connect(lambda: self._choose(ApprovalChoice.ALLOW_ONCE))
        self.always.clicked.connect(lambda: self._choose(ApprovalChoice.ALWAYS_ALLOW))
        self.deny.clicked.connect(lambda: self._choose(ApprovalChoice.DENY))
        self.hide()

    async def ask(self, ask: ApprovalAsk) -> ApprovalChoice:
        """Shown until a button is clicked; cancelling the await hides it."""
        question = self.tr("Run the tool {tool} of {server}?")
        self.question.setText(question.format(tool=ask.call.name, server=ask.server))
        arguments = json.dumps(ask.call.arguments, ensure_ascii=False)
        shown = arguments if len(arguments) <= ARGUMENTS_CHARS else arguments[:ARGUMENTS_CHARS]
        self.arguments.setText(shown)
        self.arguments.setToolTip(ask.description)
        # The loop asks only about a call whose arguments are complete: Allow is live.
        self.allow.setEnabled(ask.call.valid)
        self.always.setEnabled(ask.call.valid)
        self.deny.setEnabled(True)
        self._pending = asyncio.get_running_loop().create_future()
        self.show()
        try:
            return await self._pending
        finally:
            self._pending = None
            self.hide()

    @property
    def asking(self) -> bool:
        """A call waits for the user's answer (a click answers it at once)."""
        return self._pending is not None and not self._pending.done()

    def follow(self, arriving: str) -> None:
        """A call whose arguments still stream (`arriving`: its tool's name; "" none):
        shown with every button off until the loop asks (the arguments are complete)."""
        if self._pending is not None:
            return
        if not arriving:
            self.hide()
            return
        self.question.setText(self.tr("The model is writing a call to {tool}…").format(
            tool=arriving))  # fmt: skip
        self.arguments.setText(self.tr("Its arguments are still arriving."))
        for button in (self.allow, self.always, self.deny):
            button.setEnabled(False)
        self.show()

    def _choose(self, choice: ApprovalChoice) -> None:
        if self._pending is not None and not self._pending.done():
            self._pending.set_result(choice)


class ToolTurnView(QObject):
    """Ties a turn's tool stages to the window: the card, the status line, the footer."""

    def __init__(self, window: ChatWindow, page: ChatPage, tools: TurnTools | None) -> None:
        super().__init__(page)
        self.window, self.page = window, page
        self.card = ApprovalCard(window)
        layout = window.centre_layout
        layout.insertWidget(layout.indexOf(window.stage_label) + 1, self.card)
        if tools is not None:
            tools.approver = self.card.ask
        self._said = ""  # what this view put on the status line
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        page.runner.busyChanged.connect(self._busy)
        page.answerEnded.connect(self._ended)
        # Whether this conversation's turns offer tools (its servers, kept per
        # conversation); a new one's switch is kept by its first turn.
        self.tools = tools
        self.use_action = QAction(self.tr("Use tools in this conversation"), self)
        self.use_action.setObjectName("useTools")
        self.use_action.setCheckable(True)
        self.use_action.triggered.connect(self._use)
        page.conversationChanged.connect(self.refresh)
        page.conversationShown.connect(self._shown)
        self.refresh(page.conversation_id)

    def refresh(self, conversation_id: int | None = None) -> None:
        """The switch as the shown conversation has it (no signal: nothing is stored)."""
        tools = self.tools
        saved = tools.servers.saved.servers() if tools is not None else []
        self.use_action.setEnabled(bool(saved))
        on = tools.uses_tools(self.page.conversation_id) if tools and saved else False
        with QSignalBlocker(self.use_action):
            self.use_action.setChecked(on)

    def _shown(self) -> None:
        """Another conversation (or a new, empty one): a switch turned for an unstored
        one is forgotten."""
        if self.tools is not None:
            self.tools.new_conversation_on = None
        self.refresh()

    def _use(self, on: bool) -> None:
        if self.tools is not None:
            self.tools.use_tools(self.page.conversation_id, on)

    def _busy(self, busy: bool) -> None:
        if busy:
            self._timer.start()
        else:
            self._timer.stop()
            self._say("")
            self.card.follow("")

    def _tick(self) -> None:
        generation = self.page.runner.generation
        if generation is None or generation.finished is not None:
            return
        self._say(tool_state_text(generation))
        self.card.follow(arriving_call(generation))

    def _say(self, text: str) -> None:
        label = self.window.stage_label
        if text:
            label.setText(text)
        elif self._said and label.text() == self._said:
            label.setText("")  # the tool's words only: another part's stay
        self._said = text

    def _ended(self, generation: Generation, key: int) -> None:
        share = tool_share_text(generation)
        if share:
            figures = self.page.figures_text(generation, key)
            self.window.chat_view.set_footer(key, " · ".join(p for p in (figures, share) if p))


def tool_state_text(generation: Generation) -> str:
    """ "Using add… 1.2 s", "Using slow_count… 3 of 10 · 1.2 s" (the server's progress),
    "Waiting for your approval" or "Starting the tool servers… 2.1 s"; "" otherwise."""
    state = generation.state
    if generation.tools_starting_since_ns:  # the first turn starts the servers
        seconds = QLocale().toString((now_ns() - generation.tools_starting_since_ns) / 1e9, "f", 1)
        text = QCoreApplication.translate("ToolTurnView", "Starting the tool servers… {seconds} s")
        return text.format(seconds=seconds)
    if state is TurnState.APPROVAL:
        return turn_word(state)
    if state is TurnState.USING_TOOL and generation.tool_since_ns:
        seconds = QLocale().toString((now_ns() - generation.tool_since_ns) / 1e9, "f", 1)
        progress = progress_text(generation.running_tools)
        if progress:
            text = QCoreApplication.translate(
                "ToolTurnView", "Using {tool}… {progress} · {seconds} s"
            )
            return text.format(tool=generation.tool_name, progress=progress, seconds=seconds)
        text = QCoreApplication.translate("ToolTurnView", "Using {tool}… {seconds} s")
        return text.format(tool=generation.tool_name, seconds=seconds)
    return ""


def progress_text(running: tuple[RunningTool, ...]) -> str:
    """The running call's last progress notification ("3 of 10", "35%", or the server's
    message when it gives no total); "" with none, or while several calls run."""
    if len(running) != 1 or running[0].progress is None:
        return ""
    heard = running[0].progress
    locale, total = QLocale(), heard.total
    if total is not None and total > 0:
        if float(heard.progress).is_integer() and float(total).is_integer() and total > 1:
            text = QCoreApplication.translate("ToolTurnView", "{progress} of {total}")
            return text.format(
                progress=locale.toString(int(heard.progress)), total=locale.toString(int(total))
            )
        return f"{locale.toString(round(100 * heard.progress / total))}%"
    if heard.message:  # the server's own words (a tool's, shown as plain text)
        message = " ".join(heard.message.split())
        return message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + "…"
    count = float(heard.progress)
    return locale.toString(int(count)) if count.is_integer() else locale.toString(count, "f", 1)


def arriving_call(generation: Generation) -> str:
    """The tool the model is writing a call to now (its arguments not complete) that
    will wait for the user's yes, or "": a call that runs without asking shows no card."""
    loop = generation.tool_loop
    if loop is None:
        return ""
    for timing in loop.figures.tool_calls:
        if timing.step == loop.step and timing.opened_ns and timing.ready_ns is None:
            return timing.name if loop.will_ask(timing.name) else ""
    return ""


def tool_share_text(generation: Generation) -> str:
    """The footer's "2.3 s in all, 0.4 s in tools (17%)" for a turn that called tools
    (its tool servers' start and the runs: services/tools/call_records.py, the HUD's
    share too), the wait for the user's approval apart, never counted."""
    if generation.tool_loop is None:
        return ""
    return tool_share_words(tool_time(generation.turn_records(None)))
