"""The conversations panel's reads and edits: list and search, rename, delete with
Undo, export. The window asks these; it never calls client.store itself.
"""

from __future__ import annotations

from client.services.storage.stores import Stores, export_conversation
from client.store.conversations.history import Conversation


class ConversationList:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores
        self._history = stores.history

    @property
    def available(self) -> bool:
        """False when the app runs without a history (some tests)."""
        return self._history is not None

    def list(self, search: str | None = None) -> list[Conversation]:
        """Most recently updated first; search matches titles and message text."""
        return self._history.list_conversations(search) if self._history is not None else []

    def rename(self, conversation_id: int, title: str) -> None:
        if self._history is not None and title.strip():
            self._history.rename(conversation_id, title.strip())

    def delete(self, conversation_id: int) -> str:
        """Hide it (restore() undoes this); returns its title for the Undo bar."""
        if self._history is None:
            return ""
        conversation = self._history.get_conversation(conversation_id)
        self._history.soft_delete(conversation_id)
        return conversation.title if conversation is not None else ""

    def restore(self, conversation_id: int) -> None:
        if self._history is not None:
            self._history.restore(conversation_id)

    def export(self, conversation_id: int, kind: str) -> str:
        """Markdown (kind "markdown") or JSON, with each message's metrics."""
        return export_conversation(self._stores, conversation_id, kind)
