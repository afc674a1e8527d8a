"""A stored answer with tool calls laid out again as the model saw it: its rounds of
calls and results, then its last words; and that transcript on each server kind's wire
(OpenAI `tool_calls` and `role: tool` with tool_call_id; Ollama `tool_calls` with
arguments an object and `role: tool` with tool_name)."""

from __future__ import annotations

from dataclasses import replace

from client.backends.kinds.ollama.body import chat_body as ollama_body
from client.backends.kinds.openai.body import chat_body as openai_body
from client.core.budget import estimate_tokens
from client.core.conversation import ChatMessage, ChatRequest
from client.services.chat.turn_store import context_of
from client.services.tools.tool_history import (
    NO_RESULT,
    StoredToolCall,
    answer_messages,
    answer_steps,
)
from client.store.conversations.history import MessageState, StoredMessage

TEXT = "Let me add them.The sum is 5."
ADD = StoredToolCall(2, 1, 0, 16, "call_7", "add", '{"a": 2, "b": 3}', "demo", "done", "5.0")
FAIL = StoredToolCall(2, 1, 1, 16, "call_8", "fail", "{}", "demo", "done", "boom", True, "tool")


def _message(id_: int, role: str, content: str) -> StoredMessage:
    return StoredMessage(id_, 1, id_ - 1 or None, role, content, "", MessageState.COMPLETE, True, 0)


def test_an_answer_is_its_rounds_then_its_last_words() -> None:
    messages = answer_messages(TEXT, [FAIL, ADD])
    assert [m.role for m in messages] == ["assistant", "tool", "tool", "assistant"]
    first = messages[0]
    assert first.content == "Let me add them."
    assert [c.name for c in first.tool_calls] == ["add", "fail"]
    assert first.tool_calls[0].arguments == {"a": 2, "b": 3}
    assert (messages[1].tool_call_id, messages[1].content) == ("call_7", "5.0")
    assert (messages[2].tool_name, messages[2].content) == ("fail", "boom")
    assert messages[3] == ChatMessage("assistant", "The sum is 5.")


def test_two_rounds_without_words_between_them() -> None:
    again = StoredToolCall(2, 2, 0, 16, "call_9", "add", '{"a": 5, "b": 1}', "demo", "done", "6")
    steps, after = answer_steps(TEXT, [ADD, again])
    assert [m.role for m in steps] == ["assistant", "tool", "assistant", "tool"]
    assert steps[2].content == "" and steps[2].tool_calls[0].id == "call_9"
    assert after == "The sum is 5."


def test_a_call_left_without_a_result_is_told_so() -> None:
    unfinished = StoredToolCall(2, 1, 0, 0, "c", "slow_count", "{}", "demo", "running")
    steps, after = answer_steps("", [unfinished])
    assert steps[1].content == NO_RESULT and after == ""


def test_the_step_limits_sentence_is_not_the_models() -> None:
    limited = StoredToolCall(2, 1, 0, 3, "c", "add", "{}", "", "done", "not run", True, "limit")
    steps, after = answer_steps("Hi.\n\nThe model still called tools …", [limited])
    assert steps[0].content == "Hi." and after == ""


def test_invalid_arguments_stay_as_written_and_send_valid_json() -> None:
    broken = StoredToolCall(2, 1, 0, 0, "c", "add", '{"a": 2', "", "done", "invalid", True)
    [call] = answer_steps("", [broken])[0][0].tool_calls
    assert call.error is not None and call.arguments_text == '{"a": 2'
    sent = openai_body(ChatRequest("m", answer_messages("", [broken])))
    assert sent["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_the_history_lays_out_each_answer_with_its_calls() -> None:
    path = [_message(1, "user", "Use add for 2 and 3."), _message(2, "assistant", TEXT),
            _message(3, "user", "Thanks!")]  # fmt: skip
    messages, ids = context_of(path, tools={2: [ADD]})
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
    assert ids == [1, 2, 2, 2, 3]
    empty = _message(2, "assistant", "")  # stopped while it asked: only its calls
    messages, ids = context_of([path[0], empty], tools={2: [replace(ADD, at=0)]})
    assert [m.role for m in messages] == ["user", "assistant", "tool"]


def test_the_openai_wire_carries_the_calls_and_the_results_by_id() -> None:
    request = ChatRequest("m", [ChatMessage("user", "q"), *answer_messages(TEXT, [ADD])])
    sent = openai_body(request)["messages"]
    assert sent[1]["role"] == "assistant" and sent[1]["content"] == "Let me add them."
    assert sent[1]["tool_calls"] == [
        {"id": "call_7", "type": "function",
         "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}
    ]  # fmt: skip
    assert sent[2] == {"role": "tool", "tool_call_id": "call_7", "content": "5.0"}
    assert sent[3] == {"role": "assistant", "content": "The sum is 5."}


def test_the_ollama_wire_carries_the_calls_and_the_results_by_name() -> None:
    request = ChatRequest("m", [ChatMessage("user", "q"), *answer_messages(TEXT, [ADD])])
    sent = ollama_body(request)["messages"]
    [call] = sent[1]["tool_calls"]
    assert call["function"]["name"] == "add"
    assert call["function"]["arguments"] == {"a": 2, "b": 3}  # an object, not text
    assert sent[2]["role"] == "tool" and sent[2]["tool_name"] == "add"
    assert sent[2]["content"] == "5.0"


def test_the_prompt_budget_counts_the_calls_sent_again() -> None:
    [asked, *_] = answer_messages(TEXT, [ADD])
    bare = ChatMessage("assistant", asked.content)
    assert estimate_tokens(asked) > estimate_tokens(bare)
