"""The "Earlier turns summarised" marker in the chat: under the last message the
conversation's history summary stands for (the one its next request sends: the
session's `summary_in_use`), with a link that shows the summary. Drawn when a
conversation is shown (or its session comes), after each answer (an edit before the
summarised turns takes it away), when a summary is made, and when the Cascade menu's
switch changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from client.services.planning.compression import StoredSummary
from client.ui.common.async_errors import report

if TYPE_CHECKING:
    from client.ui.chat.chat_page import ChatPage


class SummaryMarker(QObject):
    def __init__(self, page: ChatPage) -> None:
        super().__init__(page)
        self.page = page
        page.conversationShown.connect(self.refresh)
        page.answerEnded.connect(lambda *_: self.refresh())
        page.sessionChanged.connect(lambda *_: self.refresh())  # the one reopened at start

    def refresh(self) -> None:
        view = self.page.window.chat_view
        stored = self._in_use()
        after = stored.covered_ids[-1] if stored is not None and stored.covered_ids else None
        if stored is None or after is None or not view.has_message(after):
            view.mark_summary(None)
            return
        title = self.tr("Earlier turns summarised (%Ln message(s))", "", stored.summary.covers)
        view.mark_summary(after, title, stored.summary.text)

    def _in_use(self) -> StoredSummary | None:
        session, conversation = self.page.session, self.page.conversation_id
        if session is None or conversation is None:
            return None
        try:
            return session.summary_in_use(conversation)  # a short read, as opening one is
        except Exception as error:  # only a marker: the conversation is shown anyway
            report(error, "reading the conversation's summary")
            return None
