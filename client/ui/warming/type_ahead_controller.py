"""Type-ahead in the window: the server reads the question while it is typed.

After a pause in typing (and every little while as the draft grows) the draft's plan,
as the session would send it now, is read by the server (TypeAhead,
client/services/warming/type_ahead.py). Under the composer: how much of it the server
has read ("Question read: 412 of 430 tokens"). Enter cancels a read under way (the
warming controller's request_started), and the answer's footer and waterfall say what
it saved, from the server's own counts. A checkable action in the keep-alive menu turns
it on or off for the server in use (on by default for servers on this machine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel

from client.services.events import AnswerFinished
from client.services.warming.type_ahead import (
    READ_AFTER_PAUSE_S,
    READ_WHILE_GROWING_S,
    Readiness,
    keep_saving,
    rough_count,
    set_type_ahead,
    settled_part,
    type_ahead_on,
)
from client.ui.common.async_errors import report
from client.ui.common.locale_text import number

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu

    from client.services.planning.planner import RequestPlan
    from client.services.tachy import Tachy
    from client.services.warming.warming_policy import WarmingPolicy
    from client.ui.chat.chat_page import ChatPage

PAUSE_MS = round(READ_AFTER_PAUSE_S * 1000)  # a pause in typing this long reads the draft
GROWING_MS = round(READ_WHILE_GROWING_S * 1000)  # typing without a pause reads it this often
# Ollama notices a closed connection during prompt processing only at the first token
# (ollama issue #11889) and keeps the read's slot busy till then: there a read is sent
# only for a short unread part (typing), never a long paste Enter may cut short.
OLLAMA_MOST_UNREAD = 256


class TypeAheadController(QObject):
    def __init__(
        self,
        tachy: Tachy,
        page: ChatPage,
        policy: WarmingPolicy,
        menu: QMenu,
        show_prediction: Callable[[], None],
        parent: QObject,
    ) -> None:
        """`menu`: the keep-alive menu, which gains the on/off action; `show_prediction`
        shows the predicted wait again (what was read is not waited for)."""
        super().__init__(parent)
        self.show_prediction = show_prediction
        policy.draft_unread = self.unread
        self.policy, self.page, self.tachy = policy, page, tachy
        self.window = page.window
        # The policy's: the session asks it which slot read the question's start.
        self.type_ahead = policy.type_ahead
        self.type_ahead.on_change = self._show_readiness
        self.enabled = False
        self._read_in: int | None = None  # the conversation the draft was read in
        self._target: tuple[str, str] | None = None  # the server and model read by
        self._pause = self._timer(PAUSE_MS)
        self._growing = self._timer(GROWING_MS)
        self._build_widgets(menu)
        self.window.composer.textChanged.connect(self._on_draft_changed)
        self.page.conversationChanged.connect(lambda _: self.conversation_changed())
        self.server_changed()

    def _timer(self, interval_ms: int) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(interval_ms)
        timer.timeout.connect(self._read)
        return timer

    def _build_widgets(self, menu: QMenu) -> None:
        self.readiness_label = QLabel("", self.window)
        self.readiness_label.setObjectName("typeAheadReadiness")
        self.readiness_label.setAccessibleName(self.tr("Question read while typing"))
        self.window.centre_layout.addWidget(self.readiness_label)
        self.action = QAction(self.tr("Read the question while I type"), self)
        self.action.setCheckable(True)
        self.action.setToolTip(
            self.tr("The server reads the draft as it is written, so Enter answers sooner")
        )
        self.action.toggled.connect(self.set_enabled)
        menu.addSeparator()
        menu.addAction(self.action)

    # --- the setting ----------------------------------------------------------------
    def server_changed(self) -> None:
        """The server in use changed: its setting, and nothing read of it yet."""
        session = self.tachy.session
        target = (session.backend.base_url, session.model) if session is not None else None
        if target != self._target:  # (the same one chosen again keeps what was read)
            if self._target is not None:  # (at start: read by the one there is)
                self.type_ahead.forget()
            self._target = target
        on = session is not None and type_ahead_on(
            self.policy.store, session.backend.base_url, session.is_local
        )
        self.enabled = on
        self.action.blockSignals(True)
        self.action.setChecked(on)
        self.action.blockSignals(False)
        self._show_readiness()

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        session = self.tachy.session
        if session is not None:
            try:
                set_type_ahead(self.policy.store, session.backend.base_url, session.is_local, on)
            except Exception as error:  # only the setting: it holds for this run
                report(error, "saving the type-ahead setting")
        if not on:
            self.type_ahead.forget()
        self._show_readiness()

    def conversation_changed(self) -> None:
        """Another conversation: what was read is not the draft's start. (A question
        sent in a new conversation makes it known while its request runs: kept.)"""
        if self.page.conversation_id != self._read_in and not self.page.runner.busy:
            self.type_ahead.forget()

    # --- the draft ------------------------------------------------------------------
    def _on_draft_changed(self) -> None:
        if not self.enabled:
            return
        self._pause.start()  # restarted by every keystroke
        if not self._growing.isActive():
            self._growing.start()
        self._show_readiness()

    def _read(self) -> None:
        typing = self._pause.isActive()  # the growing timer's turn: typing goes on
        self._pause.stop()
        self._growing.stop()
        session, conversation = self.tachy.session, self.page.conversation_id
        draft = self.window.composer.toPlainText()
        if typing:  # the word being typed is left for the next read
            draft = settled_part(draft)
        if not self.enabled or session is None or not draft.strip() or self.page.runner.busy:
            return  # an answer being written keeps the server busy: not now
        if not self.type_ahead.worth_reading(draft, self._count):
            return  # a few new tokens: a read under way at Enter would cost more
        try:
            plan = self.policy.next_plan(session, conversation, draft)
            if session.backend.api == "ollama" and self._unread(plan, draft) > OLLAMA_MOST_UNREAD:
                return
            self._read_in = conversation
            self.type_ahead.read(plan.route.backend, plan.request(), draft)
        except Exception as error:  # the chat works without it
            report(error, "reading the question while it is typed")

    def readiness(self, draft: str) -> Readiness | None:
        if not self.enabled:
            return None
        return self.type_ahead.readiness(draft, self._count)

    def _count(self, text: str) -> int:
        counter = self.policy.counter
        return counter.count_text(text) if counter is not None else rough_count(text)

    def _unread(self, plan: RequestPlan, draft: str) -> int:
        """The draft's tokens the server has not read: by the reads, else the plan's."""
        unread = self.unread(draft)
        return unread if unread is not None else plan.new_prompt_tokens

    def unread(self, draft: str) -> int | None:
        ready = self.readiness(draft)
        return ready.total - ready.read if ready is not None else None

    def _show_readiness(self) -> None:
        ready = self.readiness(self.window.composer.toPlainText())
        text = ""
        if ready is not None:
            text = self.tr("Question read: {read} of {total} tokens").format(
                read=number(ready.read), total=number(ready.total)
            )
        if text != self.readiness_label.text():
            self.readiness_label.setText(text)
            self.show_prediction()

    # --- the request ----------------------------------------------------------------
    def request_started(self) -> None:
        """Enter: a read under way is cancelled, so the request goes out at once."""
        self._pause.stop()
        self._growing.stop()
        self.type_ahead.request_started()
        self.readiness_label.setText("")

    def answer_finished(self, event: AnswerFinished) -> None:
        """What the request took from the reads, measured by its server, goes with its
        figures and their stored row (the footer and the HUD's waterfall read it there;
        the HUD hears this event after this)."""
        metrics = event.metrics
        saving = self.type_ahead.request_finished(metrics)
        if saving is None or saving.tokens <= 0 or metrics is None:
            return
        try:
            keep_saving(metrics, saving, self.tachy.stores.metrics, event.record_id)
        except Exception as error:  # shown now, but not when the answer is reopened
            report(error, "storing what reading the question while typing saved")

    async def aclose(self) -> None:
        self._pause.stop()
        self._growing.stop()
        await self.type_ahead.aclose()
