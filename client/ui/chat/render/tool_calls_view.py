"""An answer's tool calls in the chat (ChatView's part): each call's card between the
answer's parts (messages/tool_cards.py), shown as the call is made, asked about, run and
ended, folded until its header is clicked (or reached with Tab and pressed with Enter),
and in the answer's Copy as plain text.

A card arrives when the model's message that made the call has ended: the answer is
rendered again whole with its cards (a few times a turn, never per token), and its
stream goes on after the last card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from client.services.tools.tool_history import StoredToolCall
from client.ui.chat.render.markdown.document import one_edit
from client.ui.chat.render.messages.blocks import MessageBlock, ShownMessage
from client.ui.chat.render.messages.tool_cards import place_of, plain_text

if TYPE_CHECKING:
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QWidget

    from client.ui.chat.paced_text import PacedText


class ToolCallsView:
    """Mixed into ChatView: it has these."""

    _blocks: dict[int, MessageBlock]
    _pending: set[int]
    pacing: PacedText

    if TYPE_CHECKING:

        def _render_full(self, block: MessageBlock) -> None: ...
        def _unreserve(self, block: MessageBlock) -> None: ...
        def _at_bottom(self) -> bool: ...
        def scroll_to_end(self) -> None: ...
        def document(self) -> QTextDocument: ...
        def viewport(self) -> QWidget: ...
        def message(self, key: int) -> ShownMessage: ...

    def show_tool_calls(self, key: int, calls: list[StoredToolCall]) -> None:
        """Message `key`'s calls in their latest state (new ones added, known ones
        replaced, by round and place); the answer is rendered again with its cards."""
        block = self._blocks.get(key)
        if block is None or not calls:
            return
        follow = self._at_bottom()
        held = self.pacing.finish(key)  # the words before the card are all shown first
        if held:
            block.unjoined.append(held)
        block.join_streamed()
        self._pending.discard(key)
        known = {(c.round, c.position): c for c in block.message.tool_calls}
        known.update({(c.round, c.position): c for c in calls})
        block.message.tool_calls = [known[place] for place in sorted(known)]
        with one_edit(self.document()):
            self._render_full(block)
        self._unreserve(block)
        if follow:
            self.scroll_to_end()
        self.viewport().update()

    def tool_call_open(self, key: int, round_: int, position: int) -> bool:
        block = self._blocks.get(key)
        return block is not None and (round_, position) in block.cards_open

    def toggle_tool_call(self, key: int, action: str) -> None:
        """Fold or unfold a card (its header's link: `tool<round>_<place>`)."""
        block, place = self._blocks.get(key), place_of(action)
        if block is None or place is None:
            return
        block.cards_open ^= {place}
        block.join_streamed()
        with one_edit(self.document()):
            self._render_full(block)
        self.viewport().update()

    def copied_text(self, key: int) -> str:
        """A message as Copy gives it: its words, and each tool card as plain text
        where it sits."""
        message = self.message(key)
        if not message.tool_calls:
            return message.text
        live = message.state == "streaming"
        parts, start, text = [], 0, message.text
        for call in sorted(message.tool_calls, key=lambda c: (c.round, c.position)):
            at = min(max(call.at, start), len(text))
            parts += [text[start:at].strip(), plain_text(call, live)]
            start = at
        parts.append(text[start:].strip())
        return "\n\n".join(part for part in parts if part)
