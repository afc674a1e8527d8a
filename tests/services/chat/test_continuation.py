"""How a stopped answer is continued on each kind of server."""

from __future__ import annotations

from client.backends import OllamaBackend, OpenAICompatBackend, ollama, openai_compat
from client.backends.base import Backend
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.services.planning.continuation import (
    CONTINUATION_PROMPT,
    ContinueMode,
    RepeatedStartFilter,
    continue_mode,
)
from client.services.planning.planner import PlanInput, PlanSettings, Route, plan_request


def test_mode_per_server() -> None:
    assert continue_mode("ollama") is ContinueMode.TRAILING_ASSISTANT
    assert continue_mode("ollama", True) is ContinueMode.TRAILING_ASSISTANT
    assert continue_mode("openai", True) is ContinueMode.CONTINUE_FINAL_MESSAGE
    assert continue_mode("openai", False) is ContinueMode.PROMPT
    assert continue_mode("openai") is ContinueMode.PROMPT


def continued(backend: Backend, options: GenerationOptions | None = None) -> ChatRequest:
    """The request that continues "One, two," on this backend's server."""
    settings = PlanSettings(system_prompt="Be brief.", options=options or GenerationOptions())
    given = PlanInput([], "Count to five", settings, [Route(backend, "m")], continuing="One, two,")
    return plan_request(given).request()


def test_what_a_backend_says_about_continue_final_message() -> None:
    assert not OpenAICompatBackend("http://127.0.0.1:9").supports_continue_final_message
    vllm = OpenAICompatBackend("http://127.0.0.1:9", supports_continue_final_message=True)
    assert vllm.supports_continue_final_message
    assert not OllamaBackend("http://127.0.0.1:9").supports_continue_final_message


def test_ollama_continues_the_trailing_assistant_message() -> None:
    body = ollama.chat_body(continued(OllamaBackend("http://127.0.0.1:9")))
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Count to five"},
        {"role": "assistant", "content": "One, two,"},
    ]
    assert "continue_final_message" not in body


def test_vllm_gets_continue_final_message() -> None:
    vllm = OpenAICompatBackend("http://127.0.0.1:9", supports_continue_final_message=True)
    request = continued(vllm)
    assert request.continue_final_message
    body = openai_compat.chat_body(request)
    assert body["continue_final_message"] is True
    assert body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "One, two,"}


def test_other_openai_servers_get_a_continuation_prompt_after_the_partial_answer() -> None:
    options = GenerationOptions(temperature=0.0, max_tokens=50)
    request = continued(OpenAICompatBackend("http://127.0.0.1:9"), options)
    assert not request.continue_final_message
    assert request.messages[-2:] == [
        ChatMessage("assistant", "One, two,"),
        ChatMessage("user", CONTINUATION_PROMPT),
    ]
    assert CONTINUATION_PROMPT.startswith("Continue exactly where you stopped")
    body = openai_compat.chat_body(request)
    assert "continue_final_message" not in body
    assert (body["temperature"], body["max_tokens"]) == (0.0, 50)


def feed_all(partial: str, chunks: list[str]) -> list[str]:
    keep = RepeatedStartFilter(partial)
    return [keep.feed(chunk) for chunk in chunks]


def test_a_continuation_that_starts_over_is_dropped_until_it_goes_on() -> None:
    shown = feed_all("The keeper lit", ["The", " keeper", " lit", " the lamp", "."])
    assert shown == ["", "", "", " the lamp", "."]


def test_a_repeat_split_inside_the_last_word_is_cut_exactly() -> None:
    shown = feed_all("The keeper lit", ["The kee", "per lit the", " lamp"])
    assert "".join(shown) == " the lamp"


def test_a_real_continuation_passes_at_once() -> None:
    assert feed_all("The keeper lit", [" the lamp", "."]) == [" the lamp", "."]


def test_a_continuation_that_only_looks_like_a_repeat_is_released_whole() -> None:
    # "The k" could be the start of a repeat; "The kettle" is not: nothing is lost.
    shown = feed_all("The keeper lit", ["The k", "ettle", " boiled"])
    assert shown == ["", "The kettle", " boiled"]


def test_nothing_to_repeat() -> None:
    assert feed_all("", ["Hello"]) == ["Hello"]
