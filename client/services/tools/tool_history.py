"""A stored answer with tool calls, as the model saw it: what Continue, Retry, Edit and
every later turn send for it.

An answer's text holds only the model's words (and Tachy's sentence when the step limit
was reached); its calls are stored beside it (client/store/conversations/tool_calls.py),
each with where it sits in the text. Laid out again, the answer is, per round: an
assistant message with the text written before the calls and the calls, then one role
"tool" message per call with its result, in the calls' order; then the words written
after the last round. That is the transcript the tool loop built while the turn ran
(client/services/tools/loop.py), so the model is sent what actually happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from client.core.conversation import ChatMessage
from client.core.tools import ToolCall, ToolResult, parse_arguments
from client.store.conversations.tool_calls import StoredToolCall as StoredToolCall

# What the model is told of a call whose tool never finished (Tachy closed meanwhile).
NO_RESULT = "no result: Tachy closed before the tool finished"


def tool_call(stored: StoredToolCall) -> ToolCall:
    """The call as the model wrote it (arguments that are not a JSON object stay invalid)."""
    arguments, error = parse_arguments(stored.arguments)
    return ToolCall(stored.call_id, stored.name, arguments, stored.arguments, stored.position,
                    error)  # fmt: skip


def tool_result(stored: StoredToolCall) -> ToolResult:
    """The result the model was given (or is told now, for a call left without one)."""
    if stored.result is None:
        return ToolResult(stored.call_id, stored.name, NO_RESULT, True)
    return ToolResult(stored.call_id, stored.name, stored.result, stored.is_error)


def answer_steps(text: str, calls: Sequence[StoredToolCall]) -> tuple[list[ChatMessage], str]:
    """The answer's tool rounds as messages, and the model's words after the last one
    (the answer so far, to continue from; "" after a step limit: that sentence is
    Tachy's, not the model's)."""
    steps: list[ChatMessage] = []
    start = 0
    last: list[StoredToolCall] = []
    for _round, grouped in groupby(sorted(calls, key=_order), key=lambda c: c.round):
        last = list(grouped)
        at = min(max(last[0].at, start), len(text))  # a crash may have lost some words
        made = tuple(tool_call(call) for call in last)
        steps.append(ChatMessage("assistant", text[start:at], tool_calls=made))
        steps += [ChatMessage.tool_result(tool_result(call)) for call in last]
        start = at
    after = text[start:]
    if last and all(call.problem == "limit" for call in last):
        after = ""
    return steps, after


def answer_messages(text: str, calls: Sequence[StoredToolCall]) -> list[ChatMessage]:
    """The whole answer as the model saw it (its tool rounds, then its last words)."""
    if not calls:
        return [ChatMessage("assistant", text)]
    steps, after = answer_steps(text, calls)
    return [*steps, ChatMessage("assistant", after)] if after else steps


def rounds_of(calls: Sequence[StoredToolCall]) -> int:
    """How many rounds an answer's calls make (a Continue's next round is one more)."""
    return max((call.round for call in calls), default=0)


def _order(call: StoredToolCall) -> tuple[int, int]:
    return call.round, call.position
