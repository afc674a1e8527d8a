"""What the stage line says while an answer is awaited (the product's waiting rules).

Before the first token: nothing for the first 300 ms; a typing indicator from 300 ms;
from 1 s the current stage and the time waited. The times come from the request's
own stamps (RequestTimeline stages), so the line tells the truth about the wait.
"""

from __future__ import annotations

TYPING_AFTER_MS = 300
STAGE_AFTER_MS = 1000

STAGE_WORDS = {
    "loading": "Loading model",  # the words: "Loading model…"
    "understanding": "Reading your question",
    "retrieving": "Looking things up",
    "thinking": "Thinking",
    "answering": "Answering",
}
TYPING = "Typing…"


def waiting_text(elapsed_ms: float, stage: str | None) -> str:
    """The stage line for a request waiting `elapsed_ms` for its first answer token."""
    if elapsed_ms < TYPING_AFTER_MS:
        return ""
    if elapsed_ms < STAGE_AFTER_MS:
        return TYPING
    words = STAGE_WORDS.get(stage or "understanding", "Working")
    return f"{words}… {elapsed_ms / 1000:.1f} s"
