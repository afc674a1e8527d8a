"""Context budget: fit a conversation into the prompt room the model has.

The prompt budget is the model's context length (from Ollama /api/show or the
OpenAI-compatible /v1/models; the caller passes it in) minus the room kept for the
answer, unless the user set a budget. When the conversation is too long, the oldest
turns are dropped first; the system prompt(s) at the start and the last question
(with anything after it, e.g. an answer being continued) are always kept.

Token counts come from a counter callable: the server's tokenizer where it has one
(client.services.planning.tokenize), else ``estimate_tokens``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.core.conversation import ChatMessage
from client.core.images import estimate_image_tokens

# A message costs its text plus the chat template's wrapping (role header, separators).
# ChatML-style templates (SmolLM2, Qwen, llama.cpp's default) add about 4-5 tokens per
# message; English text averages about 4 characters per token in BPE vocabularies.
# Rounding up keeps the estimate on the safe side of the limit.
CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4
DEFAULT_ANSWER_ROOM = 512

TokenCounter = Callable[[ChatMessage], int]


def estimate_text_tokens(text: str) -> int:
    """ceil(chars / 4): the documented estimate when the server has no tokenizer."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_tokens(message: ChatMessage) -> int:
    """ceil(chars / 4) + 4 per message (the template's role header and separators),
    plus its images' tokens (client.core.images.estimate_image_tokens) and its tool
    calls' (their names and arguments, as sent again in the history)."""
    images = sum(estimate_image_tokens(i) for i in message.images)
    calls = sum(estimate_text_tokens(c.name + c.arguments_json()) for c in message.tool_calls)
    return estimate_text_tokens(message.content) + TOKENS_PER_MESSAGE + images + calls


def prompt_budget(
    context_length: int | None,
    answer_room: int = DEFAULT_ANSWER_ROOM,
    setting: int | None = None,
) -> int | None:
    """Tokens the prompt may use. None means no known limit (send everything).

    The answer room never takes more than half the context (small models have 2k);
    a user setting wins, but never beyond what the model can hold.
    """
    room = min(answer_room, context_length // 2) if context_length else answer_room
    ceiling = context_length - room if context_length else None
    if setting is not None and setting > 0:
        return min(setting, ceiling) if ceiling is not None else setting
    return ceiling


@dataclass(frozen=True, slots=True)
class FittedPrompt:
    """What to send, and where the chat shows the "earlier messages not sent" marker.

    cut_index: index (in the original list) of the first message sent after the cut;
    the ui draws the marker just above it. None when nothing was dropped.
    """

    messages: list[ChatMessage]
    prompt_tokens: int
    budget: int | None
    dropped: int = 0
    cut_index: int | None = None

    @property
    def was_cut(self) -> bool:
        return self.dropped > 0

    @property
    def fits(self) -> bool:
        """False when even the kept minimum (system + last question) is over budget."""
        return self.budget is None or self.prompt_tokens <= self.budget


def fit_to_budget(
    messages: Sequence[ChatMessage],
    budget: int | None,
    count: TokenCounter = estimate_tokens,
) -> FittedPrompt:
    """Drop whole turns, oldest first, until the prompt fits the budget."""
    costs = [count(m) for m in messages]
    total = sum(costs)
    if budget is None or total <= budget:
        return FittedPrompt(list(messages), total, budget)
    head = _system_head(messages)
    tail = _last_question(messages, head)
    turn_starts = _turn_starts(messages, head, tail)
    # Dropping up to turn_starts[k] removes messages[head:turn_starts[k]].
    keep_from, remaining, previous = tail, total, head
    for start in [*turn_starts, tail]:
        remaining -= sum(costs[previous:start])
        previous = start
        if remaining <= budget:
            keep_from = start
            break
    kept = [*messages[:head], *messages[keep_from:]]
    tokens = sum(costs[:head]) + sum(costs[keep_from:])
    dropped = keep_from - head
    return FittedPrompt(
        kept, tokens, budget, dropped=dropped, cut_index=keep_from if dropped else None
    )


def _system_head(messages: Sequence[ChatMessage]) -> int:
    """How many system messages open the conversation (always kept)."""
    head = 0
    while head < len(messages) and messages[head].role == "system":
        head += 1
    return head


def _last_question(messages: Sequence[ChatMessage], head: int) -> int:
    """Index of the last user message (kept with everything after it)."""
    for index in range(len(messages) - 1, head - 1, -1):
        if messages[index].role == "user":
            return index
    return max(head, len(messages) - 1)


def _turn_starts(messages: Sequence[ChatMessage], head: int, tail: int) -> list[int]:
    """Where each older turn after the first begins (a user message), so a cut never
    leaves an answer without its question at the top of the prompt."""
    return [i for i in range(head + 1, tail) if messages[i].role == "user"]
