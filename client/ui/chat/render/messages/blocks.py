"""What the chat view keeps per message: the message as shown and its frames."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QTextFrame

from client.services.tools.tool_history import StoredToolCall
from client.ui.chat.render.markdown.safe_markdown import SettledPoint


@dataclass(slots=True)
class ShownMessage:
    """A message as the chat shows it (the ui's own view of a stored message)."""

    key: int
    role: str  # "user" | "assistant" | "system"
    text: str
    state: str = "complete"
    version: tuple[int, int] | None = None  # (1-based index, count) among sibling answers
    thinking: str = ""  # a reasoning model's reasoning, shown above the answer
    footer: str = ""  # "0.21 s to first token · 48 tok/s ..." (chat.render.messages.answer_footer)
    route: str = ""  # a cascade's "fast" or "strong" (as stored with the answer)
    model: str = ""  # the model that wrote it
    server: str = ""  # the server that wrote it (shown for a pool's answer)
    # Knowledge: a heading, then "[1] ~/notes/a.md:3-9" ...
    # (client.ui.knowledge.knowledge_controller)
    citations: list[str] = field(default_factory=list)
    citation_targets: list[tuple[str, int]] = field(default_factory=list)  # (path, line)
    # An answer's tool calls, in order; each a card where it sits in the text (`at`).
    tool_calls: list[StoredToolCall] = field(default_factory=list)


@dataclass(slots=True)
class MessageBlock:
    """One message in the document: its speaker, content and label frames and streaming
    state."""

    message: ShownMessage
    content: QTextFrame
    meta: QTextFrame
    who: QTextFrame | None = None  # above it: who speaks (see MessageLabels.render_who)
    tail_start: int = -1  # document position where the unsettled tail begins
    rendered_settled: int = 0  # chars of message.text rendered for good
    rendered_fence: str = ""  # the code block open where they end (SettledPoint.fence)
    settled: SettledPoint = field(default_factory=SettledPoint)
    streaming: bool = False
    painted_first: bool = False
    chunk: QTextFrame | None = None  # the frame receiving settled text while streaming
    group: QTextFrame | None = None  # the frame holding `chunk` and the chunks before it
    group_chunks: int = 0  # how many chunks `group` holds
    thinking_frame: QTextFrame | None = None  # above `content`, made on first need
    thinking_open: bool = True  # the reasoning is shown (collapsed: only its header)
    thinking_rendered: int = 0  # chars of message.thinking in the document
    thinking_painted: bool = False  # the first reasoning chunk of this stream is painted
    reserved: bool = False  # laid out before its first token; no label until text comes
    meta_shown: bool = True  # the label under it matches its state
    final_due: bool = False  # streamed; its final render comes a loop turn later
    # Its tool cards: the ones unfolded (by round and place), the last card's frame and
    # where the text after it starts (a stream renders only that segment's tail).
    cards_open: set[tuple[int, int]] = field(default_factory=set)
    last_card: QTextFrame | None = None
    segment_at: int = 0
    # Streamed text not yet joined onto message.text: appending a token is a list append
    # (O(chunk)), joined once per frame (ChatView.flush), not a copy of the whole answer.
    unjoined: list[str] = field(default_factory=list)

    def join_streamed(self) -> ShownMessage:
        if self.unjoined:
            self.message.text += "".join(self.unjoined)
            self.unjoined.clear()
        return self.message
