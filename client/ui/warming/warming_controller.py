"""Keeps the model warm and predicts the wait, in the window.

WarmingController adapts the services' WarmingPolicy (client/services/warming/
warming_policy.py: the KeepAliveWarmer, a TTFT predictor per model, the prompt
budget) to the widgets:
- warming at start, on a server or model change and when the user starts typing;
  the warm-up carries the prefix of the draft's plan (the server's prompt cache then
  holds the request's start before it is sent), and staying a second on another
  conversation warms that one;
- the model's state next to its name ("warm · 28 min left"), refreshed every 30 s;
- a keep-alive and prompt-budget menu in the server bar;
- the predicted time to first token under the composer, on every keystroke;
- a marker in the chat where history was cut.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QMenu, QToolButton

from client.core.conversation import ChatMessage
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.servers.model_status import ModelStatus
from client.services.warming.warming_policy import WarmingPolicy
from client.ui.chat.run_listener import TachyEvents
from client.ui.common.async_errors import KeptTasks, report
from client.ui.common.error_text import error_text
from client.ui.common.locale_text import number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.status_text import model_state_text, policy_text, prediction_text
from client.ui.servers.engine_sleep_controller import EngineSleepController
from client.ui.warming.shrinking_label import ShrinkingLabel
from client.ui.warming.type_ahead_controller import TypeAheadController
from client.ui.warming.warming_menu import BUDGET_CHOICES, KEEP_ALIVE_CHOICES, add_choices

if TYPE_CHECKING:
    from client.ui.servers.server_controller import ServerController

TYPING_WARM_MS = 300  # the first keystroke warms this soon after; later ones ride along
# An opened conversation's prefix is warmed once the user stays on it this long: a
# server that queues requests (the local engine) would otherwise make the user's
# request wait for the prefill of a conversation only passed through on the way.
OPENED_WARM_MS = 1000
REFRESH_MS = 30_000  # "warm · N min left" is re-read this often
CUT_MARKER = QT_TRANSLATE_NOOP("WarmingController", "Earlier messages not sent: context budget")


class WarmingController(QObject):
    """The shell calls conversation_opened when the user opens a conversation (or a new
    one) in the list, and shows predictionNoteChanged in the latency HUD."""

    predictionNoteChanged = Signal(str)  # how far the predicted waits were off

    def __init__(
        self, servers: ServerController, policy: WarmingPolicy, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.servers = servers
        self.tachy = servers.tachy
        self.window = servers.window
        self.page = servers.page
        self.policy = policy
        self.warmer = policy.warmer
        self.warmer.add_listener(self._on_status)
        policy.prefix_provider(self._current)
        self._build_widgets()
        self.tasks = KeptTasks()  # reading a context length, counting tokens
        self._typing_timer = self._timer(TYPING_WARM_MS, self._typed)
        self._opened_timer = self._timer(OPENED_WARM_MS, self._warm_opened)
        self._refresh_timer = self._timer(REFRESH_MS, self._show_status, single=False)
        self._refresh_timer.start()
        self._connect()
        self.engine_sleep = EngineSleepController(self.tachy, self.page, self.warmer, self.tasks)
        menu = self.options_menu
        self.type_ahead = TypeAheadController(
            self.tachy, self.page, policy, menu, self.show_prediction, self
        )
        # A read of the draft under way stops at once, before the question goes.
        self.events.turnStarted.connect(lambda _: self.type_ahead.request_started())
        self.events.answerFinished.connect(self.type_ahead.answer_finished)

    def _timer(self, interval_ms: int, slot: Callable[[], None], single: bool = True) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(single)
        timer.setInterval(interval_ms)
        timer.timeout.connect(slot)
        return timer

    def _current(self) -> tuple[ChatSession | None, int | None, str]:
        """The session, the open conversation and the draft: what the next request is."""
        return self.tachy.session, self.page.conversation_id, self.window.composer.toPlainText()

    def next_prefix(self) -> list[ChatMessage] | None:
        """What the next question's request will start with (what a warm-up warms)."""
        session, conversation, draft = self._current()
        if session is None:
            return None
        return list(self.policy.next_plan(session, conversation, draft).prefix)

    # --- widgets -------------------------------------------------------------------
    def _build_widgets(self) -> None:
        bar = self.window.server_bar
        self.state_label = ShrinkingLabel("", bar)  # gives way to the bar's buttons
        self.state_label.setObjectName("modelState")
        self.state_label.setAccessibleName(self.tr("Model state"))
        self.options_button = QToolButton(bar)
        self.options_button.setObjectName("warmingOptions")
        self.options_button.setText(self.tr("Keep-alive ▾"))
        # Fusion draws InstantPopup's arrow over the text's end; the ▾ in the text replaces it.
        self.options_button.setStyleSheet("QToolButton::menu-indicator { image: none; }")
        self.options_button.setToolTip(
            self.tr("How long the model stays loaded; the prompt budget")
        )
        self.options_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.options_menu = QMenu(self.options_button)
        self.keep_alive_actions = add_choices(
            self.options_menu,
            self.tr,
            KEEP_ALIVE_CHOICES,
            self.warmer.settings.keep_alive,
            self.set_keep_alive,
        )
        self.options_menu.addSeparator()
        self.budget_actions = add_choices(
            self.options_menu,
            self.tr,
            BUDGET_CHOICES,
            self.policy.budget_setting,
            self.set_budget_setting,
        )
        self.options_button.setMenu(self.options_menu)
        layout = bar.row
        at = layout.indexOf(bar.model_picker) + 1
        layout.insertWidget(at, self.state_label)
        layout.insertWidget(at + 1, self.options_button)
        self.prediction_label = QLabel("", self.window)
        self.prediction_label.setObjectName("ttftPrediction")
        self.prediction_label.setAccessibleName(self.tr("Predicted wait"))
        self.window.centre_layout.addWidget(self.prediction_label)  # right under the composer
        self.prediction_note = ""  # in the HUD's tooltip of its time to first token
        self._show_hud_error()

    # --- wiring --------------------------------------------------------------------
    def _connect(self) -> None:
        self.servers.serverChanged.connect(self._on_server_changed)
        self.window.server_bar.modelChosen.connect(self._on_model_chosen)
        self.window.composer.textChanged.connect(self._on_draft_changed)
        self.page.conversationChanged.connect(lambda _: self._recount_base())
        # After ChatPage's own slot: the question has its stored id by then.
        self.page.runner.ended.connect(self._on_ended)
        # The policy hears each turn on the root's events; the window only redraws.
        self.events = TachyEvents(self.tachy.events, self)
        self.events.turnStarted.connect(lambda _: self.prediction_label.setText(""))
        self.events.answerFinished.connect(lambda _: self._show_hud_error())

    def _on_server_changed(self, _url: str, _api: str, _model: str) -> None:
        self._retarget("app start" if self.warmer.backend is None else "server changed")

    def _on_model_chosen(self, _model: str) -> None:
        self._retarget("model changed")

    def _retarget(self, reason: str) -> None:
        session = self.tachy.session
        if session is None:
            return
        self.tachy.retarget_warming(reason)
        self.type_ahead.server_changed()
        self._show_hud_error()
        self._show_status()
        self.tasks.spawn(self._load_budget(session), "reading the model's context length")

    async def _load_budget(self, session: ChatSession) -> None:
        if await self.policy.load_budget(session.route):
            self._on_conversation_opened()  # the one reopened at start, now with its budget

    # --- settings ------------------------------------------------------------------
    def set_keep_alive(self, value: str | int | None) -> None:
        self.policy.set_keep_alive(value)
        self.engine_sleep.keep_alive_changed()  # the local engine unloads after it idle
        self._show_status()
        if value is not None:
            self.warmer.warm("keep-alive changed")

    def set_budget_setting(self, tokens: int | None) -> None:
        self.policy.set_budget_setting(tokens)

    # --- model state ---------------------------------------------------------------
    def _on_status(self, status: ModelStatus) -> None:
        self.policy.note_state(status.state)
        self._show_status()
        self._show_prediction()

    def _show_status(self) -> None:
        self.state_label.setText(model_state_text(self.warmer.status))
        warmer = self.warmer
        tip = policy_text(warmer.policy, warmer.settings.keep_alive, warmer.server_name)
        if error := self.warmer.last_error:
            failed = self.tr("The last warm-up failed: {error}")
            tip += "\n" + failed.format(error=error_text(error))
        self.state_label.setToolTip(tip)
        self.options_button.setToolTip(tip)

    # --- the draft -----------------------------------------------------------------
    def _on_draft_changed(self) -> None:
        text = self.window.composer.toPlainText()
        if text.strip() and not self._typing_timer.isActive():
            self._typing_timer.start()
        self._show_prediction(text)

    def _typed(self) -> None:
        """The user started typing: warm the model and fetch the draft's token count."""
        self._warm("typing")
        if self.policy.needs_recount(self.page.conversation_id):  # another conversation
            self._recount_base()
        text = self.window.composer.toPlainText()
        counter = self.policy.counter
        if counter is not None and text.strip():
            self.tasks.spawn(counter.prepare([ChatMessage("user", text)]), "counting tokens")

    def show_prediction(self) -> None:
        """The draft's images changed: the predicted wait counts them again."""
        self._show_prediction()

    def _show_prediction(self, text: str | None = None) -> None:
        """Per keystroke: a cached count and a few multiplies (no I/O)."""
        if text is None:
            text = self.window.composer.toPlainText()
        prediction = self.policy.predict_draft(text)
        shown = prediction_text(prediction) if prediction else ""
        if shown and self.policy.images_estimated():  # before the server counted an image
            shown = self.tr("{prediction} (the image's tokens estimated)").format(prediction=shown)
        self.prediction_label.setText(shown)

    def _recount_base(self) -> None:
        session = self.tachy.session
        if session is not None:
            conversation, draft = self.page.conversation_id, self.window.composer.toPlainText()
            try:
                self.policy.recount_base(session, conversation, draft)
            except Exception as error:  # only the prediction: the chat goes on
                report(error, "reading the conversation")
        self._show_prediction()

    # --- prefix warming --------------------------------------------------------------
    def _warm(self, reason: str) -> None:
        try:
            task = self.warmer.warm(reason)
        except Exception as error:  # the chat works without warming
            report(error, "keeping the model warm")
            return
        if task is not None:  # a warmed prefix is no longer part of the predicted wait
            task.add_done_callback(self._warm_up_done)

    def _warm_opened(self) -> None:
        if self.policy.worth_warming_opened():
            self._warm("conversation opened")

    def _warm_up_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():  # a request went out, or the app closes
            return
        try:
            self._recount_base()
        except Exception as error:  # only the prediction: never break the chat
            report(error, "predicting the wait")

    # --- requests ------------------------------------------------------------------
    def _show_hud_error(self) -> None:
        self.prediction_note = self._prediction_error_text()
        self.predictionNoteChanged.emit(self.prediction_note)

    def _prediction_error_text(self) -> str:
        predictor = self.policy.predictor
        error = predictor.median_error_pct()
        if error is None:
            return self.tr("Prediction error: not measured yet")
        count = predictor.error_count
        text = self.tr(
            "Predicted vs actual first token: median error {error} % (%Ln request(s))", "", count
        )
        return text.format(error=number(error))

    def conversation_opened(self) -> None:
        """Opening a stored conversation (or a new one) does not emit conversationChanged;
        deferred, so it runs after the page has shown it."""
        QTimer.singleShot(0, self._on_conversation_opened)

    def _on_conversation_opened(self) -> None:
        self.type_ahead.conversation_changed()
        self._recount_base()
        self._opened_timer.start()  # then its prefix is warmed, if the server lacks it
        try:
            self._mark_stored_cut()
        except Exception as error:  # only a marker: the conversation is shown anyway
            report(error, "reading the conversation")

    def _mark_stored_cut(self) -> None:
        """Redraw the budget marker of a reopened conversation: the cut its last request
        had, planned again from the stored messages with the session's budget."""
        session, conversation = self.tachy.session, self.page.conversation_id
        if session is None or conversation is None:
            return
        plan = session.plan_of_last_question(conversation)
        if plan is None:
            return
        cut = plan.cut.first_kept_id
        if cut is not None and self.window.chat_view.has_message(cut):
            self.window.chat_view.mark_cut(cut, self.tr(CUT_MARKER))

    def _on_ended(self, generation: Generation, _key: int) -> None:
        cut = generation.cut_before_message_id
        if cut is not None and self.window.chat_view.has_message(cut):
            self.window.chat_view.mark_cut(cut, self.tr(CUT_MARKER))
        self._recount_base()

    async def aclose(self) -> None:
        """Timers and tasks stop; the policy saves and stops with the app's Tachy."""
        for timer in (self._typing_timer, self._opened_timer, self._refresh_timer):
            timer.stop()
        self.events.close()
        self.policy.save_learned()
        await self.type_ahead.aclose()
        await self.tasks.aclose()
