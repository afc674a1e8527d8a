"""A stored conversation as the chat shows it: each message of its active path with
its versions and, for an answer, its tool calls (their cards)."""

from __future__ import annotations

from client.services.chat.shown_history import ShownHistory, StoredMessage
from client.ui.chat.render.messages.blocks import ShownMessage
from client.ui.common.async_errors import report


def shown_messages(stored: ShownHistory, path: list[StoredMessage]) -> list[ShownMessage]:
    """The path's messages as shown (the versions and the tool calls read at once)."""
    conversation_id = path[0].conversation_id if path else None
    versions = stored.versions_in(conversation_id) if conversation_id is not None else {}
    try:
        calls = stored.tool_calls([m.id for m in path if m.role == "assistant"])
    except Exception as error:  # the answers show without their cards
        report(error, "reading the answers' tool calls")
        calls = {}
    return [
        ShownMessage(
            message.id,
            message.role,
            message.content,
            str(message.state),
            versions.get(message.id) if message.role != "system" else None,
            thinking=message.thinking or "",
            route=message.route or "",
            model=message.model or "",
            server=message.server or "",
            tool_calls=calls.get(message.id, []),
        )
        for message in path
    ]
