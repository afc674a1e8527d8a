"""What the chat page reads and writes of the stored history: a conversation's active
path, an answer's versions, the metrics shown under answers (the window never calls
client.store itself; these are short reads, made outside a stream's paint path).
"""

from __future__ import annotations

from collections.abc import Iterable

from client.services.chat import turn_store
from client.store.conversations.history import HistoryStore
from client.store.conversations.history import StoredMessage as StoredMessage  # for the window
from client.store.conversations.tool_calls import StoredToolCall, ToolCallStore
from client.store.metrics_store import MetricsRecord, MetricsStore


class ShownHistory:
    def __init__(
        self, history: HistoryStore | None = None, metrics: MetricsStore | None = None
    ) -> None:
        self._history = history
        self._metrics = metrics

    @property
    def available(self) -> bool:
        """False when the app runs without a history (some tests)."""
        return self._history is not None

    def path(self, conversation_id: int) -> list[StoredMessage]:
        """The messages shown: the active version of each, root to leaf."""
        return self._history.active_path(conversation_id) if self._history is not None else []

    def versions(self, message_id: int) -> list[int]:
        """The ids of the message and its other versions, oldest first. An attempt that
        failed before any text is no version (the next attempt replaced it), unless
        it is the one asked about."""
        if self._history is None:
            return []
        return _counted(self._history.siblings(message_id), message_id)

    def versions_in(self, conversation_id: int) -> dict[int, tuple[int, int]]:
        """Every message with other versions (edited questions, answers again): its
        position from 1 and how many there are (the stored versions read at once,
        then each group of them once, for the empty failures among them)."""
        if self._history is None:
            return {}
        stored = self._history.versions(conversation_id)
        shown: dict[int, tuple[int, int]] = {}
        read: set[int] = set()
        for first in stored:
            if first in read:
                continue
            siblings = self._history.siblings(first)
            read.update(m.id for m in siblings)
            for message in siblings:
                ids = _counted(siblings, message.id)
                if len(ids) > 1:
                    shown[message.id] = (ids.index(message.id) + 1, len(ids))
        return shown

    def show_version(self, message_id: int) -> bool:
        """Make this version (and its ancestors) the active one; True when the
        conversation's title changed with it (it follows the first question)."""
        if self._history is None:
            return False
        return turn_store.show_version(self._history, message_id)

    def answer_records(self, message_ids: Iterable[int]) -> dict[int, list[MetricsRecord]]:
        """Each message's requests, oldest first (a Continue adds one), for its footer."""
        if self._metrics is None:
            return {}
        found = self._metrics.for_messages(message_ids)
        return {key: records for key, records in found.items() if records}

    def tool_calls(self, message_ids: Iterable[int]) -> dict[int, list[StoredToolCall]]:
        """Each answer's tool calls (their cards), in the order they were made."""
        if self._history is None:
            return {}
        return ToolCallStore(self._history.db).for_messages(message_ids)

    def set_paint_ms(self, record_id: int, paint_ms: float) -> None:
        if self._metrics is not None:
            self._metrics.set_paint_ms(record_id, paint_ms)


def _counted(siblings: list[StoredMessage], message_id: int) -> list[int]:
    return [m.id for m in siblings if m.id == message_id or not _empty_failure(m)]


def _empty_failure(message: StoredMessage) -> bool:
    """An answer that failed before any text: an attempt, not a version."""
    failed = str(message.state) == "failed"
    return failed and message.role == "assistant" and not (message.content or message.thinking)
