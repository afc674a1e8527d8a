"""How to ask a server to continue an answer that was stopped or interrupted.

The continued text is appended to the same stored message, so the request must make
the model pick up mid-sentence rather than start a new answer:

- Ollama continues a trailing assistant message by itself: send the conversation
  with the partial answer as the last message.
- OpenAI-compatible servers that understand ``continue_final_message`` (vLLM) do the
  same when asked to; ``ChatRequest.continue_final_message`` asks. Whether a server
  does is the backend's to say (Backend.supports_continue_final_message).
- Other OpenAI-compatible servers (llama.cpp, LM Studio ...) would answer the partial
  message as if it were finished, so a short user prompt asks them to go on, with the
  partial answer included just before it.

client.services.planning.planner lays out the request for each mode.
"""

from __future__ import annotations

from enum import StrEnum

CONTINUATION_PROMPT = (
    "Continue exactly where you stopped, mid-sentence if needed. Do not repeat any of "
    "the text you already wrote and do not comment on the continuation."
)


class ContinueMode(StrEnum):
    TRAILING_ASSISTANT = "trailing_assistant"  # Ollama: continues on its own
    CONTINUE_FINAL_MESSAGE = "continue_final_message"  # vLLM's request flag
    PROMPT = "prompt"  # any other OpenAI-compatible server


def continue_mode(api: str, supports_continue_final_message: bool | None = None) -> ContinueMode:
    """The way to continue on a server speaking ``api`` ("ollama" or "openai")."""
    if api == "ollama":
        return ContinueMode.TRAILING_ASSISTANT
    if supports_continue_final_message:
        return ContinueMode.CONTINUE_FINAL_MESSAGE
    return ContinueMode.PROMPT


class RepeatedStartFilter:
    """Drops a continuation that starts over by repeating the partial answer.

    Asked to continue with a prompt, small models (SmolLM2 on llama.cpp) often write
    the whole answer again from its first word. While the continuation is still a
    prefix of the partial answer its text is held back; once it has repeated the whole
    partial answer, the repeat is dropped and the rest goes on; if it turns out to
    be different, the held text is released as it was. Held text that is never
    released is, by definition, words the message already has.
    """

    def __init__(self, partial_answer: str) -> None:
        self._partial = partial_answer.strip()
        self._held = ""
        self._deciding = bool(self._partial)

    def feed(self, text: str) -> str:
        """The part of `text` to show and store now ("" while deciding)."""
        if not self._deciding:
            return text
        self._held += text
        candidate = self._held.lstrip()
        if self._partial.startswith(candidate):
            return ""
        self._deciding = False
        held, self._held = self._held, ""
        if candidate.startswith(self._partial):
            return candidate[len(self._partial) :]
        return held
