"""What the chat does: ask, stop, continue, retry, regenerate, edit, switch versions.

The Qt-free ChatSession (client/services/chat/session.py) does the work; this adapts it to
the widgets of the main window and offers the next steps after every outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal

from client.core.images import Attachment
from client.services.chat.answer_figures import RequestFigures, loading_ms, via_router, whole_answer
from client.services.chat.answer_writer import stage_record
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, NextStep, Outcome, SlowStart
from client.services.chat.shown_history import ShownHistory, StoredMessage
from client.services.chat.turn_state import TurnState
from client.services.chat.turn_store import POOL_ROUTE
from client.services.planning.router import RouteDecision
from client.ui.chat.generation_runner import GenerationRunner, temporary_key
from client.ui.chat.render.chat_view import ShownMessage
from client.ui.chat.render.messages.answer_footer import footer_text, stored_share_text
from client.ui.chat.render.messages.citations import add_stored_citations
from client.ui.chat.stored_messages import shown_messages
from client.ui.common.async_errors import report
from client.ui.common.error_text import error_text
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.route_words import pool_label, tier_label, via_label
from client.ui.common.turn_words import slow_start_sentence

if TYPE_CHECKING:
    from client.ui.chat.chat_window import ChatWindow

# What a stored answer's state offers when its conversation is opened again.
STOPPED_KEPT = QT_TRANSLATE_NOOP("ChatPage", "This answer was stopped; the text so far is kept.")
INTERRUPTED_KEPT = QT_TRANSLATE_NOOP(
    "ChatPage", "This answer was interrupted; the text so far is kept."
)
RESUMABLE = {  # the sentences are shown through ChatPage.tr
    "stopped": (STOPPED_KEPT, (NextStep.CONTINUE, NextStep.RETRY)),
    "interrupted": (INTERRUPTED_KEPT, (NextStep.CONTINUE, NextStep.RETRY)),
    "failed": (
        QT_TRANSLATE_NOOP("ChatPage", "This answer failed."),
        (NextStep.RETRY, NextStep.EDIT_QUESTION),
    ),
}


class ChatPage(QObject):
    chooseServerRequested = Signal()
    useLocalRequested = Signal()
    conversationChanged = Signal(object)  # conversation id or None
    conversationShown = Signal()  # a stored or a new, empty conversation is on screen
    timingRequested = Signal(int)  # an answer's id: show its waterfall
    sessionChanged = Signal(object)  # the ChatSession (the knowledge link attaches to it)
    imagesSent = Signal(int, object)  # a question's key and its images (list[Attachment])
    answerEnded = Signal(object, int)  # the Generation and its answer's key (cascade label)
    continueOtherRequested = Signal(int)  # an answer's key (ui/cascade_link.py)
    questionKept = Signal()  # asked with no server answering: the server controller says why
    editingChanged = Signal(bool)  # an earlier question is being edited in the composer

    def __init__(
        self,
        window: ChatWindow,
        stored: ShownHistory | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.stored = stored or ShownHistory()
        self.session: ChatSession | None = None
        self.conversation_id: int | None = None
        self.runner = GenerationRunner(window.chat_view, window.stage_label, self)
        self._editing: int | None = None  # the earlier question being edited
        self._pending_question: str | None = None
        self._held = False  # the chosen server does not answer yet: questions are kept
        self._last_question = ""
        self._question_key: int | None = None
        self._outcome_key = 0  # the answer the outcome bar's buttons act on
        # The composer's images for the next question; None: they cannot go (the
        # attachments controller, client/ui/chat/attachments_controller.py, sets it).
        self.take_images: Callable[[], list[Attachment] | None] = list
        self._connect()

    def _connect(self) -> None:
        w = self.window
        w.composer.submitted.connect(self.send)
        w.composer.stopRequested.connect(self.stop)
        w.send_button.clicked.connect(w.composer.submit)
        w.stop_button.clicked.connect(self.stop)
        w.outcome_bar.chosen.connect(self._on_step)
        w.chat_view.actionRequested.connect(self._on_message_action)
        self.runner.busyChanged.connect(w.set_busy)
        self.runner.slowStart.connect(self._on_slow_start)
        self.runner.ended.connect(self._on_ended)
        self.runner.conversationKnown.connect(self._on_conversation_known)
        self.runner.answerStarted.connect(self._on_answer_started)

    # --- the session ---------------------------------------------------------------
    def set_session(self, session: ChatSession | None) -> None:
        self.session = session
        self.sessionChanged.emit(session)
        self._send_kept_question()

    def hold_questions(self, held: bool) -> None:
        """While the chosen server does not answer, questions are kept (never sent to
        the server chosen before, nor failed as unreachable); released, one goes out."""
        self._held = held
        self._send_kept_question()

    def _send_kept_question(self) -> None:
        session = self.session
        if session is not None and not self._held and self._pending_question is not None:
            question, self._pending_question = self._pending_question, None
            self._last_question = question  # already shown in the chat
            self.window.stage_label.setText("")
            self.window.set_busy(False)  # the runner's own busy state from here
            self._start(partial(session.generate, self.conversation_id, question))

    @property
    def busy(self) -> bool:
        return self.runner.busy

    @property
    def last_question(self) -> str:
        """The question the running (or last) request asked."""
        return self._last_question

    # --- asking --------------------------------------------------------------------
    def send(self, text: str, decision: RouteDecision | None = None) -> None:
        """Ask `text`; with a cascade, `decision` overrides the router."""
        text = text.strip()
        if not text or self.busy:
            return
        images = self.take_images() if self.session and not self._held and not self._editing else []
        if images is None:
            return  # the attachments said why (a model that cannot see); the text stays
        self.window.composer.clear()
        self.window.outcome_bar.clear()
        session = self.session
        if session is None or self._held:
            if self._pending_question is not None:  # one waiting question at a time
                self.window.composer.setPlainText(text)
                return
            self._pending_question = text
            self._show_question(text)
            self.window.set_busy(True)  # Stop takes the kept question back
            self.questionKept.emit()
            return
        self._last_question = text
        if self._editing is not None:
            edited, self._editing = self._editing, None
            self.editingChanged.emit(False)
            self._truncate_view(edited)
            self._show_question(text)
            self._start(partial(session.edit_and_resend, edited, text))
            return
        self._show_question(text)
        self.imagesSent.emit(self._question_key, images)
        ask = partial(session.generate, self.conversation_id, text, decision=decision)
        self._start(partial(ask, images=images))

    def _show_question(self, text: str) -> None:
        self._question_key = temporary_key()
        self.window.chat_view.add_message(ShownMessage(self._question_key, "user", text))
        self.window.chat_view.scroll_to_end()

    def _start(
        self, make_generation: Callable[[], Generation], answer_key: int | None = None
    ) -> None:
        # Typing goes on in the composer, wherever the action came from (a bar's
        # button, a link, a shortcut): never into the Search box the focus fell to.
        self.window.composer.setFocus()
        try:
            generation = make_generation()
        except Exception as error:  # e.g. the message was deleted meanwhile
            report(error, "starting a generation")
            return
        self.runner.start(generation, answer_key)

    @property
    def kept_question(self) -> str | None:
        """A question asked before there was a server to send it to (the turn's queued
        state); it goes out when the session comes."""
        return self._pending_question

    def stop(self) -> None:
        if self._pending_question is not None and not self.runner.busy:
            self._take_back_kept_question()
            return
        self.runner.stop()

    def _take_back_kept_question(self) -> None:
        """Stop while the question waits for a server: it is not sent, and its text goes
        back to the composer (nothing is lost)."""
        text, self._pending_question = self._pending_question or "", None
        view, key = self.window.chat_view, self._question_key
        if key is not None and view.has_message(key):
            view.set_messages([view.message(k) for k in view.keys() if k != key])
        self._question_key = None
        self.window.stage_label.setText("")
        self.window.set_busy(False)
        self.window.composer.put_back(text)

    def regenerate(
        self, decision: RouteDecision | None = None, answer_key: int | None = None
    ) -> None:
        """A new answer beside the last one (or `answer_key`'s: an answer's own link)."""
        key, session = answer_key or self.last_answer_key(), self.session
        if key is None or self.busy or session is None:
            return
        self._last_question = self._question_before(key)
        self.window.outcome_bar.clear()
        self._truncate_view(key)
        self._start(partial(session.regenerate, key, decision))

    def continue_answer(self, key: int, decision: RouteDecision | None = None) -> None:
        session = self.session
        if self.busy or session is None:
            return
        self.window.outcome_bar.clear()
        self._start(partial(session.continue_message, key, decision), answer_key=key)

    def retry(self, key: int) -> None:
        session = self.session
        if self.busy or session is None:
            return
        self.window.outcome_bar.clear()
        if key <= 0:  # nothing was stored for that answer: ask the question again
            question_key = self._user_key_before(key)
            question = self._question_before(key) or self._last_question
            if question_key is not None:
                self._truncate_view(question_key)
            self.send(question)
            return
        if self.window.chat_view.has_message(key):
            self._truncate_view(key)
        self._start(partial(session.retry, key))

    # --- outcomes ------------------------------------------------------------------
    def _on_slow_start(self, event: SlowStart) -> None:
        generation = self.runner.generation
        state = generation.state if generation is not None else TurnState.WAITING
        self.window.outcome_bar.show_steps(
            slow_start_sentence(state, event.waited_s), event.next_steps
        )

    def _on_answer_started(self) -> None:
        bar = self.window.outcome_bar
        if "keep_waiting" in bar.buttons:  # the slow start is over: the answer came
            bar.clear()

    def _on_ended(self, generation: Generation, key: int) -> None:
        w = self.window
        finished = generation.finished
        self._adopt_ids(generation)
        self._store_paint_time(generation)
        w.composer.setFocus()
        if finished is None:
            return
        w.chat_view.set_footer(key, self.figures_text(generation, key))
        steps = list(finished.next_steps)
        # One card: a failure's sentence sits in the bar with its buttons.
        w.stage_label.setText("" if steps else error_text(finished.error_message))
        if key > 0 and self.stored.available:
            self._refresh_version(key)
            if generation.kind == "edit" and generation.user_message_id is not None:
                self._refresh_version(generation.user_message_id)  # the question's ‹n/n›
        if steps:
            w.outcome_bar.show_steps(_outcome_sentence(finished), steps)
            self._outcome_key = key
        else:
            w.outcome_bar.clear()
        self.conversationChanged.emit(self.conversation_id)
        self.answerEnded.emit(generation, key)

    def figures_text(self, generation: Generation, key: int) -> str:
        """The footer's figures for an answer that just ended: its request's, or for
        a continued answer, the whole message's (every request that wrote it)."""
        finished = generation.finished
        if finished is None:
            return ""
        requests: list[RequestFigures] = []
        stages: object = stage_record(generation.timeline, None)
        if generation.kind == "continue" and key > 0:
            try:
                stored = self.stored.answer_records([key]).get(key, [])
            except Exception as error:  # the footer shows this request's figures
                report(error, "reading the answer's metrics")
                stored = []
            requests += stored
            stages = stored[0].stages if stored else stages  # the answer's first request
            if generation.metrics_record_id is None:  # not stored (no room): add it
                requests.append(finished.metrics)
        whole = whole_answer(requests or [finished.metrics])
        figures = footer_text(whole, whole.parts, loading_ms(stages)) if whole is not None else ""
        answered_by = generation.answered_by  # a pool's answer: the server that gave it
        source = pool_label(POOL_ROUTE, answered_by[0]) if answered_by else ""
        route = generation.route  # a router does not say which worker answered
        via = via_label(route is not None and route.backend.kind.hides_worker)
        return " · ".join(part for part in (figures, source, via) if part)

    def _on_conversation_known(self, conversation_id: int) -> None:
        if self.conversation_id != conversation_id:
            self.conversation_id = conversation_id
            self.conversationChanged.emit(conversation_id)

    def _store_paint_time(self, generation: Generation) -> None:
        record_id = generation.metrics_record_id
        timeline = generation.timeline
        if record_id is None or timeline.painted_ns is None:
            return
        first = timeline.first_token_ns  # reasoning is painted too: its first chunk counts
        if first is not None:
            try:
                self.stored.set_paint_ms(record_id, (timeline.painted_ns - first) / 1e6)
            except Exception as error:
                report(error, "storing the paint time")

    def _adopt_ids(self, generation: Generation) -> None:
        if generation.conversation_id is not None:
            self.conversation_id = generation.conversation_id
        user_id = generation.user_message_id
        if self._question_key is not None and user_id is not None:
            self.window.chat_view.rekey(self._question_key, user_id)
        self._question_key = None

    def _on_step(self, name: str) -> None:
        key = self._outcome_key
        if name == NextStep.KEEP_WAITING:
            return
        if name == NextStep.CANCEL:
            self.stop()
        elif name == NextStep.CONTINUE:
            self.continue_answer(key)
        elif name == NextStep.CONTINUE_OTHER:
            self.continueOtherRequested.emit(key)
        elif name == NextStep.RETRY:
            self.retry(key)
        elif name == NextStep.EDIT_QUESTION:
            self._edit_question_again(key)
        elif name == NextStep.CHOOSE_SERVER:
            self.chooseServerRequested.emit()
        elif name == NextStep.USE_LOCAL:
            self.useLocalRequested.emit()

    def _edit_question_again(self, answer_key: int) -> None:
        question = self._question_before(answer_key) or self._last_question
        user_key = self._user_key_before(answer_key)
        if user_key is not None and user_key > 0:
            self._editing = user_key
        self.window.composer.put_back(question)

    # --- per-message links: copy is the view's; edit and versions are here ----------
    def _on_message_action(self, action: str, key: int) -> None:
        if action == "edit" and not self.busy:
            self._editing = key if key > 0 else None
            self.window.composer.put_back(self.window.chat_view.message(key).text)
            self.editingChanged.emit(self._editing is not None)
        elif action == "regenerate":
            self.regenerate(answer_key=key)
        elif action == "timing":
            self.timingRequested.emit(key)
        elif action in ("prev", "next"):
            self.switch_version(key, -1 if action == "prev" else 1)

    def stop_editing(self) -> None:
        """The composer's text goes out as a new question, not as the edit."""
        self._editing = None

    def switch_version(self, key: int, step: int) -> None:
        if not self.stored.available or self.busy:
            return
        ids = self.stored.versions(key)
        if key not in ids:
            return
        index = min(max(ids.index(key) + step, 0), len(ids) - 1)
        retitled = self.stored.show_version(ids[index])
        self.show_conversation(self.conversation_id)
        if retitled:  # the first question changed: the list shows the new title
            self.conversationChanged.emit(self.conversation_id)

    def _refresh_version(self, key: int) -> None:
        try:
            ids = self.stored.versions(key)
        except Exception as error:
            report(error, "reading versions")
            return
        if key in ids and self.window.chat_view.has_message(key):
            self.window.chat_view.message(key).version = (ids.index(key) + 1, len(ids))
            self.window.chat_view.set_state(key, self.window.chat_view.message(key).state)

    # --- conversations -------------------------------------------------------------
    def show_conversation(self, conversation_id: int | None) -> None:
        """Show a stored conversation (its active path), or an empty new one."""
        if self.busy:
            self.stop()
        self.conversation_id = conversation_id
        self._editing = None
        self.window.outcome_bar.clear()
        self.window.stage_label.setText("")
        if conversation_id is None or not self.stored.available:
            self.window.chat_view.clear_messages()
            self.conversationShown.emit()
            return
        path = self.stored.path(conversation_id)
        shown = shown_messages(self.stored, path)  # with versions and tool calls
        self._add_footers(shown)
        self.window.chat_view.set_messages(shown)
        if path and path[-1].role == "assistant" and str(path[-1].state) in RESUMABLE:
            self._show_resumable(path[-1])
        self.conversationShown.emit()

    def _show_resumable(self, last: StoredMessage) -> None:
        """The bar under a stored answer that can go on: its own stored reason (a
        failed version flipped to says why it failed), else what its state means."""
        self._outcome_key = last.id
        sentence, steps = RESUMABLE[str(last.state)]
        reason = error_text(last.error_message) if last.error_message else self.tr(sentence)
        self.window.outcome_bar.show_steps(reason, steps)

    def _add_footers(self, shown: list[ShownMessage]) -> None:
        """Each stored answer's footer, from the stored metrics of its requests."""
        answers = [m for m in shown if m.role == "assistant"]
        if not answers:
            return
        try:
            records = self.stored.answer_records([m.key for m in answers])
        except Exception as error:  # the chat shows without its footers
            report(error, "reading the answers' metrics")
            return
        for message in answers:
            requests = records.get(message.key, [])
            whole = whole_answer(requests)
            loaded = loading_ms(requests[0].stages) if requests else None
            figures = footer_text(whole, whole.parts, loaded) if whole is not None else ""
            # As the live answer showed it: its figures, a cascade's route or the server
            # of a pool that gave it, "via router".
            route, model, server = message.route, message.model, message.server
            parts = [figures, tier_label(route, model), pool_label(route, server)]
            parts += [via_label(via_router(requests)), stored_share_text(requests)]
            message.footer = " · ".join(part for part in parts if part)
            if requests:
                add_stored_citations(message, requests[-1].stages)

    # --- helpers -------------------------------------------------------------------
    def _truncate_view(self, key: int) -> None:
        view = self.window.chat_view
        keys = view.keys()
        if key not in keys:
            return
        kept = [view.message(k) for k in keys[: keys.index(key)]]
        view.set_messages(kept)

    def last_answer_key(self) -> int | None:
        view = self.window.chat_view
        for key in reversed(view.keys()):
            if view.message(key).role == "assistant":
                return key if key > 0 else None
        return None

    def _user_key_before(self, key: int) -> int | None:
        view = self.window.chat_view
        keys = view.keys()
        before = keys[: keys.index(key)] if key in keys else keys
        for k in reversed(before):
            if view.message(k).role == "user":
                return k
        return None

    def _question_before(self, key: int) -> str:
        user_key = self._user_key_before(key)
        return self.window.chat_view.message(user_key).text if user_key is not None else ""


def _outcome_sentence(finished: Finished) -> str:
    if finished.outcome is Outcome.STOPPED:
        return QCoreApplication.translate("ChatPage", STOPPED_KEPT)  # one wording, reopened too
    return error_text(finished.error_message or "")
