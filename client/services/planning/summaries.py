"""Each conversation's summary of its older turns, on the session for the planner and
in the store across restarts (client/store/conversations/summaries.py).

    summaries = ConversationSummaries(SummaryStore(db))
    summaries.keep(conversation_id, stored)      # on the database thread
    stored = summaries.recall(conversation_id)   # the session's, else the stored one

A dict of the summaries known this run (conversation id -> StoredSummary); `recall`
reads a conversation's stored summary the first time it is asked for. Whether a
summary is used is still `StoredSummary.holds_for` (an edit before the summarised turns,
or another version of them, leaves it out).
"""

from __future__ import annotations

from client.services.planning.compression import StoredSummary
from client.services.planning.planner import HistorySummary
from client.store.conversations.summaries import SummaryStore


class ConversationSummaries(dict[int, StoredSummary]):
    def __init__(self, store: SummaryStore | None = None) -> None:
        super().__init__()
        self.store = store
        self._read: set[int] = set()  # conversations whose stored summary was looked up

    def recall(self, conversation_id: int) -> StoredSummary | None:
        """The conversation's summary; the stored one is read once (a short statement:
        call it on the database thread, or outside the streaming hot path)."""
        if conversation_id not in self and conversation_id not in self._read:
            self._read.add(conversation_id)
            saved = self.store.get(conversation_id) if self.store is not None else None
            if saved is not None and saved.covered_ids:
                summary = HistorySummary(saved.text, len(saved.covered_ids))
                self[conversation_id] = StoredSummary(summary, saved.covered_ids)
        return self.get(conversation_id)

    def keep(self, conversation_id: int, stored: StoredSummary) -> None:
        """This run's summary, stored for the next (on the database thread)."""
        self[conversation_id] = stored
        if self.store is not None:
            self.store.save(conversation_id, stored.summary.text, stored.covered_ids)
