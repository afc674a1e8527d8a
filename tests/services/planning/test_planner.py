"""The request planner: messages exactly as sent, the budget's cut, the route and why,
the slots for passages and a history summary, and the predicted wait."""

from __future__ import annotations

import pytest

from client.backends import OllamaBackend, OpenAICompatBackend
from client.core.budget import estimate_tokens
from client.core.conversation import ChatMessage, GenerationOptions
from client.services.planning.planner import (
    PASSAGES_HEAD,
    CachedPrompt,
    HistorySummary,
    Passage,
    PlanInput,
    PlanSettings,
    Route,
    plan_request,
)

OPENAI = Route(OpenAICompatBackend("http://127.0.0.1:9"), "small", "Lab")
OLLAMA = Route(OllamaBackend("http://127.0.0.1:9"), "big", "Ollama")
HISTORY = [
    ChatMessage("user", "What is a tide?"),
    ChatMessage("assistant", "The rise and fall of the sea."),
    ChatMessage("user", "Why?"),
    ChatMessage("assistant", "The moon pulls it."),
]
IDS = [11, 12, 13, 14]


def plan_for(text: str = "And the sun?", **changes: object) -> PlanInput:
    settings = changes.pop("settings", PlanSettings(system_prompt="Be brief."))
    return PlanInput(HISTORY, text, settings, [OPENAI, OLLAMA], IDS, text_id=15, **changes)  # type: ignore[arg-type]


def test_the_messages_are_the_system_prompt_the_history_and_the_question() -> None:
    plan = plan_request(plan_for())
    assert plan.messages == (
        ChatMessage("system", "Be brief."),
        *HISTORY,
        ChatMessage("user", "And the sun?"),
    )
    assert plan.prefix == plan.messages[:-1]
    assert plan.prompt_tokens == sum(estimate_tokens(m) for m in plan.messages)
    assert plan.new_prompt_tokens == plan.prompt_tokens  # nothing known to be cached
    assert plan.cut.count == 0 and plan.cut.first_kept_id is None
    assert plan.request().messages == list(plan.messages)


def test_a_stored_system_message_is_not_doubled() -> None:
    stored = [ChatMessage("system", "Stored."), *HISTORY]
    settings = PlanSettings(system_prompt="Be brief.")
    plan = plan_request(PlanInput(stored, "Q", settings, [OPENAI], [10, *IDS]))
    assert [m.content for m in plan.messages[:2]] == ["Stored.", "What is a tide?"]


def test_the_route_is_the_preferred_candidate_and_says_why() -> None:
    plan = plan_request(plan_for())
    assert plan.route is OPENAI
    assert plan.why == "the server and model chosen"
    assert plan.request().model == "small"
    with pytest.raises(ValueError):
        plan_request(PlanInput(HISTORY, "Q", PlanSettings(), []))


def test_the_budget_cuts_the_oldest_turn_and_says_what_was_cut() -> None:
    whole = plan_request(plan_for()).prompt_tokens
    first_turn = sum(estimate_tokens(m) for m in HISTORY[:2])
    plan = plan_request(plan_for(settings=PlanSettings("Be brief.", budget=whole - first_turn)))
    assert plan.cut.dropped == tuple(HISTORY[:2])
    assert plan.cut.first_kept_id == 13  # the chat draws the marker above "Why?"
    assert plan.messages[1:] == (*HISTORY[2:], ChatMessage("user", "And the sun?"))
    assert plan.prefix_length == 3 and plan.prompt_tokens <= whole - first_turn
    assert plan.fitted.dropped == 2


def test_everything_before_the_question_cut_marks_the_question() -> None:
    plan = plan_request(plan_for(settings=PlanSettings("Be brief.", budget=1)))
    assert plan.cut.count == 4 and plan.cut.first_kept_id == 15
    assert [m.role for m in plan.messages] == ["system", "user"]


def test_options_and_ollama_settings_go_into_the_request_as_a_copy() -> None:
    options = GenerationOptions(temperature=0.2, max_tokens=9)
    settings = PlanSettings(options=options, keep_alive="30m", think=True)
    request = plan_request(plan_for(settings=settings)).request()
    assert (request.options.temperature, request.options.max_tokens) == (0.2, 9)
    assert (request.keep_alive, request.think) == ("30m", True)
    request.options.max_tokens = 1
    assert options.max_tokens == 9


def test_passages_go_after_the_prefix_so_the_cache_still_hits() -> None:
    plain = plan_request(plan_for())
    passages = (Passage("tides.md", "Tides follow the moon."),)
    plan = plan_request(plan_for(passages=passages))
    assert plan.prefix == plain.prefix
    question = plan.messages[-1]
    assert question == ChatMessage(
        "user", f"{PASSAGES_HEAD}\n\n[1] tides.md\nTides follow the moon.\n\nQuestion: And the sun?"
    )
    assert plan.passages == passages


def test_a_summary_stands_for_the_history_it_covers_in_the_system_message() -> None:
    summary = HistorySummary("They talked about tides.", covers=2)
    plan = plan_request(plan_for(summary=summary))
    assert plan.messages[0].role == "system"
    assert plan.messages[0].content.startswith("Be brief.")
    assert "They talked about tides." in plan.messages[0].content
    assert plan.messages[1:] == (*HISTORY[2:], ChatMessage("user", "And the sun?"))
    assert plan.summary == summary


def test_the_predicted_wait_counts_only_what_the_server_has_not_cached() -> None:
    asked: list[int] = []

    def ttft(tokens: int) -> float:
        asked.append(tokens)
        return 10.0 + tokens

    cold = plan_request(plan_for(ttft=ttft))
    cached = plan_request(plan_for(ttft=ttft, cached=CachedPrompt(cold.prefix)))
    question_tokens = estimate_tokens(ChatMessage("user", "And the sun?"))
    assert cold.predicted_ttft_ms == 10.0 + cold.prompt_tokens
    assert cached.new_prompt_tokens == question_tokens
    assert cached.predicted_ttft_ms == 10.0 + question_tokens
    assert asked == [cold.prompt_tokens, question_tokens]
    assert plan_request(plan_for()).predicted_ttft_ms is None  # nothing learned yet


def test_the_answer_the_server_wrote_after_a_cached_prompt_is_cached_too() -> None:
    asked = [ChatMessage("system", "Be brief."), *HISTORY[:3]]  # the last request's prompt
    question = ChatMessage("user", "And the sun?")
    answered = plan_request(plan_for(cached=CachedPrompt(tuple(asked), answered=True)))
    assert answered.new_prompt_tokens == estimate_tokens(question)
    unanswered = plan_request(plan_for(cached=CachedPrompt(tuple(asked))))
    assert unanswered.new_prompt_tokens == estimate_tokens(HISTORY[3]) + estimate_tokens(question)


def test_continue_keeps_the_partial_answer_with_its_question() -> None:
    plan = plan_request(plan_for(continuing="The sun pulls", settings=PlanSettings(budget=1)))
    assert plan.messages[-3:-1] == (
        ChatMessage("user", "And the sun?"),
        ChatMessage("assistant", "The sun pulls"),
    )
    assert plan.messages[-1].role == "user"  # llama.cpp and others are asked to go on
    ollama = PlanInput(HISTORY, "And the sun?", PlanSettings(), [OLLAMA], continuing="The")
    assert plan_request(ollama).messages[-1] == ChatMessage("assistant", "The")
