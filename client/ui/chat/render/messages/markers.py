"""The lines the chat draws between messages (ChatView's part; MessageLabels renders
them under a message's label):

- "— Earlier messages not sent: context budget —" above the first message the last
  request sent after a cut (the prompt budget);
- "— Earlier turns summarised (4 messages) — Show summary" under the last message a
  history summary stands for; the link shows the summary under it, and hides it again.
  The summarised messages stay in the chat as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from client.ui.chat.render.markdown.document import one_edit
from client.ui.chat.render.messages.blocks import MessageBlock, ShownMessage
from client.ui.chat.render.messages.labels import MessageLabels

if TYPE_CHECKING:
    from PySide6.QtGui import QTextDocument


class ChatMarkers:
    """Mixed into ChatView: it has these."""

    labels: MessageLabels
    _blocks: dict[int, MessageBlock]
    _earlier_by_key: dict[int, ShownMessage]

    if TYPE_CHECKING:

        def document(self) -> QTextDocument: ...
        def _render_all_earlier(self) -> None: ...
        def _key_before(self, key: int) -> int | None: ...

    def mark_cut(self, key: int, text: str) -> None:
        """Show `text` on a line just above message `key`: the history before it was
        not sent (the prompt budget). One marker at a time: the latest request's."""
        if key in self._earlier_by_key:
            self._render_all_earlier()
        old, self.labels.cut_before, self.labels.cut_text = self.labels.cut_before, key, text
        self._render_labels(
            [self._key_before(cut) if cut is not None else None for cut in {old, key}]
        )

    def cut_marked_before(self) -> int | None:
        return self.labels.cut_before

    def mark_summary(self, after: int | None, title: str = "", text: str = "") -> None:
        """The summary marker under message `after` (None: no marker); `text`, the
        summary, shows when the user opens it (closed for a new summary)."""
        labels = self.labels
        old = labels.summary_after
        if (old, labels.summary_title, labels.summary_text) == (after, title, text):
            return
        labels.summary_after, labels.summary_title, labels.summary_text = after, title, text
        labels.summary_open = False
        self._render_labels([old, after])

    def summary_marked_after(self) -> int | None:
        return self.labels.summary_after

    def toggle_summary(self) -> None:
        self.labels.summary_open = not self.labels.summary_open
        self._render_labels([self.labels.summary_after])

    def _render_labels(self, keys: list[int | None]) -> None:
        # (A message not rendered yet draws its marker when it is: labels.render.)
        for key in dict.fromkeys(keys):
            if key is not None and key in self._blocks:
                with one_edit(self.document()):
                    self.labels.render(self._blocks[key])
