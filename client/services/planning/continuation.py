"""How to ask a server to continue an answer that was stopped or interrupted.

The continued text is appended to the same stored message, so the request must make
the model pick up mid-sentence rather than start a new answer. Best is the server's
own continuation: the model reads its partial answer as the start of its turn and
writes on from its last token, so its own tokens decide the join (" on", "ister" after
"lightho") and the prompt is the one the server's cache already holds.

- Ollama and llama.cpp's server continue a final assistant message by themselves:
  the conversation is sent with the partial answer as the last message. (Ollama's
  template/template.go leaves a final assistant message open; llama-server does
  since llama.cpp PR 13174 unless started with --no-prefill-assistant.) The local
  engine is llama-server.
- vLLM does the same when asked by ``continue_final_message: true`` with
  ``add_generation_prompt: false``; ``ChatRequest.continue_final_message`` asks.
- Other OpenAI-compatible servers (LM Studio, llama-cpp-python ...) would answer the
  partial message as if it were finished, so a short user prompt asks them to go on,
  with the partial answer just before it. Their continuation is a new message: it
  may start over (RepeatedStartFilter) or with a capital and no space (PromptJoin).

Whether a server does which is the backend's to say
(Backend.continues_trailing_assistant, Backend.supports_continue_final_message);
client.services.planning.planner lays out the request for each mode.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

CONTINUATION_PROMPT = (
    "Continue exactly where you stopped, mid-sentence if needed. Do not repeat any of "
    "the text you already wrote and do not comment on the continuation."
)
# A prompted continuation that starts with a capital right after these gets a space:
# "befall" + "Lighthouse" is two words the model did not join itself.
WORD_ENDS = ".,;:!?)]\"'”’"


class ContinueMode(StrEnum):
    TRAILING_ASSISTANT = "trailing_assistant"  # Ollama, llama-server: on their own
    CONTINUE_FINAL_MESSAGE = "continue_final_message"  # vLLM's request flag
    PROMPT = "prompt"  # any other OpenAI-compatible server


def continue_mode(
    continues_trailing: bool, supports_continue_final_message: bool | None = None
) -> ContinueMode:
    """The way to continue on a server that does (or not) continue a final assistant
    message by itself, or when asked by the flag."""
    if continues_trailing:
        return ContinueMode.TRAILING_ASSISTANT
    if supports_continue_final_message:
        return ContinueMode.CONTINUE_FINAL_MESSAGE
    return ContinueMode.PROMPT


def prompted_answer_filter(partial_answer: str) -> Callable[[str], str]:
    """What a continuation asked by a prompt shows: without a restart of the partial
    answer, and joined to it as two words when it starts a new one."""
    repeat = RepeatedStartFilter(partial_answer)
    join = PromptJoin(partial_answer)
    return lambda text: join.feed(repeat.feed(text))


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


class PromptJoin:
    """A space between the partial answer and a prompted continuation that starts a
    word with a capital right after a word or a sentence ("befall" + "Lighthouse").
    Only the first text shown is looked at; a lowercase start may finish a word cut in
    two ("lightho" + "use"), so it is left as the model wrote it."""

    def __init__(self, partial_answer: str) -> None:
        last = partial_answer[-1:]
        self._pending = bool(last) and (last.isalnum() or last in WORD_ENDS)

    def feed(self, text: str) -> str:
        if not self._pending or not text:
            return text
        self._pending = False
        return " " + text if text[0].isupper() else text
