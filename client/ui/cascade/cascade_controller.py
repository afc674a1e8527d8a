"""What the window shows of a cascade (client/services/cascade/cascade.py): the route under each
answer ("fast · SmolLM2-135M"), the fallback said on the status line, and the user's
overrides:

- "Ask the strong model" (Ctrl+Shift+Enter): the composer's text goes to the strong
  model whatever the router would say.
- "Re-ask with the other model" (Ctrl+Shift+R): the last answer asked again of the
  model that did not write it, kept as another version (‹ 1/2 ›).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction, QKeySequence

from client.services.chat.compression_task import HistoryCompressor
from client.services.chat.generation import Generation
from client.services.planning.compression import StoredSummary
from client.services.planning.planner import is_cascade
from client.services.planning.router import Tier, chosen_by_user
from client.ui.chat.render.messages.summary_marker import SummaryMarker
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text
from client.ui.common.route_words import tier_label, tier_word
from client.ui.common.shortcuts import key_of

if TYPE_CHECKING:
    from client.ui.chat.chat_page import ChatPage

ASK_STRONG_KEYS = key_of("ask_strong")
REASK_KEYS = key_of("reask")


def fallback_sentence(generation: Generation) -> str:
    fell = generation.fell_back
    if fell is None:
        return ""
    return QCoreApplication.translate(
        "Cascade",
        "The {failed} model ({failed_model}) failed before answering; "
        "the {answered} model ({model}) answered. {error}",
    ).format(
        failed=tier_word(fell.failed_tier),
        failed_model=fell.failed_model,
        answered=tier_word(fell.plan.route.tier),
        model=fell.plan.route.model,
        error=error_text(fell.error),
    )


class CascadeController(QObject):
    def __init__(self, page: ChatPage) -> None:
        super().__init__(page)
        self.page = page
        self.tiers: dict[int, str] = {}  # answer key -> the tier that wrote it
        window = page.window
        self.ask_strong_action = self._action(self.tr("Ask the strong model"), ASK_STRONG_KEYS)
        self.ask_strong_action.triggered.connect(self.ask_strong)
        self.reask_action = self._action(self.tr("Re-ask with the other model"), REASK_KEYS)
        self.reask_action.triggered.connect(self.reask_other)
        window.addAction(self.ask_strong_action)
        window.addAction(self.reask_action)
        page.answerEnded.connect(self._on_answer_ended)
        page.continueOtherRequested.connect(self.continue_other)
        self.compress = True  # the Cascade menu's "Summarise long conversations"
        self.tasks = KeptTasks()  # history compression in the background
        self.summary_marker = SummaryMarker(page)  # "Earlier turns summarised" in the chat

    def _action(self, text: str, keys: str) -> QAction:
        action = QAction(text, self.page.window)
        action.setShortcut(QKeySequence(keys))
        return action

    def active(self) -> bool:
        session = self.page.session
        return session is not None and is_cascade(session.routes)

    def ask_strong(self) -> None:
        if not self.active():
            self.say(self.tr("Choose a cascade first: a fast and a strong model."))
            return
        text = self.page.window.composer.toPlainText()
        self.page.send(text, chosen_by_user(Tier.STRONG))

    def reask_other(self) -> None:
        key = self.page.last_answer_key()
        if not self.active() or key is None:
            self.say(self.tr("Choose a cascade first: a fast and a strong model."))
            return
        self.page.regenerate(chosen_by_user(self._written_by(key).other))

    def continue_other(self, key: int) -> None:
        """Go on from a kept partial answer with the model that did not write it."""
        self.page.continue_answer(key, chosen_by_user(self._written_by(key).other))

    def _written_by(self, key: int) -> Tier:
        """The tier that wrote an answer: this run's, or as stored (a reopened one)."""
        view = self.page.window.chat_view
        stored = view.message(key).route if view.has_message(key) else ""
        written = self.tiers.get(key) or stored
        return Tier(written) if written in (Tier.FAST.value, Tier.STRONG.value) else Tier.FAST

    def _on_answer_ended(self, generation: Generation, key: int) -> None:
        self._compress_later(generation)
        route, finished = generation.route, generation.finished
        if route is None or not route.tier or finished is None:
            return
        self.tiers[key] = route.tier
        parts = [self.page.figures_text(generation, key), tier_label(route.tier, route.model)]
        self.page.window.chat_view.set_footer(key, " · ".join(p for p in parts if p))
        if sentence := fallback_sentence(generation):
            self.say(sentence)

    def _compress_later(self, generation: Generation) -> None:
        session, conversation = self.page.session, generation.conversation_id
        if session is None or conversation is None:
            return
        session.configure(compress_history=self.compress)
        job = HistoryCompressor(session).after_answer(conversation, lambda: self.page.busy)
        self.tasks.spawn(self._said_when_summarised(job), "summarise earlier turns")

    async def _said_when_summarised(self, job: Coroutine[Any, Any, StoredSummary | None]) -> None:
        stored = await job
        if stored is not None and not self.page.busy:
            self.summary_marker.refresh()
            self.say(
                self.tr(
                    "Earlier turns summarised: %Ln message(s) are sent as a summary.",
                    "",
                    stored.summary.covers,
                )
            )

    async def aclose(self) -> None:
        await self.tasks.aclose()

    def say(self, sentence: str) -> None:
        self.page.window.stage_label.setText(sentence)
