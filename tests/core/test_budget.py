"""The context budget: oldest turns go first; system prompt and last question stay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from client.core.budget import (
    estimate_text_tokens,
    estimate_tokens,
    fit_to_budget,
    prompt_budget,
)
from client.core.conversation import ChatMessage


def one_token_each(message: ChatMessage) -> int:
    return len(message.content)  # "content" made of N characters costs N tokens


def msg(role: str, size: int, tag: str = "x") -> ChatMessage:
    return ChatMessage(role, tag * size)  # type: ignore[arg-type]


def chat() -> list[ChatMessage]:
    return [
        msg("system", 10, "s"),
        msg("user", 20, "a"),
        msg("assistant", 30, "b"),
        msg("user", 20, "c"),
        msg("assistant", 30, "d"),
        msg("user", 5, "e"),
    ]


def test_estimate_is_quarter_chars_rounded_up_plus_four_per_message() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd") == 1
    assert estimate_text_tokens("abcde") == 2
    assert estimate_tokens(ChatMessage("user", "abcde")) == 6


def test_everything_fits_nothing_cut() -> None:
    fitted = fit_to_budget(chat(), 115, one_token_each)
    assert fitted.messages == chat()
    assert fitted.prompt_tokens == 115
    assert not fitted.was_cut and fitted.cut_index is None and fitted.fits


def test_no_budget_sends_everything() -> None:
    fitted = fit_to_budget(chat(), None, one_token_each)
    assert fitted.messages == chat() and fitted.fits


def test_oldest_turn_dropped_first_and_marker_placed_before_first_kept() -> None:
    fitted = fit_to_budget(chat(), 114, one_token_each)
    assert [m.content[0] for m in fitted.messages] == ["s", "c", "d", "e"]
    assert fitted.dropped == 2
    assert fitted.cut_index == 3  # the marker sits above original message 3
    assert fitted.prompt_tokens == 65 and fitted.fits


def test_drops_as_many_turns_as_needed() -> None:
    fitted = fit_to_budget(chat(), 64, one_token_each)
    assert [m.content[0] for m in fitted.messages] == ["s", "e"]
    assert fitted.dropped == 4 and fitted.cut_index == 5
    assert fitted.prompt_tokens == 15


def test_system_and_last_question_kept_even_over_budget() -> None:
    fitted = fit_to_budget(chat(), 3, one_token_each)
    assert [m.content[0] for m in fitted.messages] == ["s", "e"]
    assert not fitted.fits


def test_continuing_an_answer_keeps_the_question_and_the_partial_answer() -> None:
    messages = [*chat(), msg("assistant", 7, "f")]
    fitted = fit_to_budget(messages, 30, one_token_each)
    assert [m.content[0] for m in fitted.messages] == ["s", "e", "f"]
    assert fitted.cut_index == 5


def test_no_system_prompt() -> None:
    fitted = fit_to_budget(chat()[1:], 60, one_token_each)
    assert [m.content[0] for m in fitted.messages] == ["c", "d", "e"]
    assert fitted.cut_index == 2


def test_prompt_budget_from_context_length() -> None:
    assert prompt_budget(8192) == 8192 - 512
    assert prompt_budget(2048, answer_room=512) == 1536
    assert prompt_budget(512) == 256  # the answer never takes more than half
    assert prompt_budget(None) is None
    assert prompt_budget(8192, setting=1000) == 1000
    assert prompt_budget(2048, setting=100_000) == 1536  # never beyond the model
    assert prompt_budget(None, setting=900) == 900


roles = st.sampled_from(["user", "assistant"])
conversations = st.lists(
    st.tuples(roles, st.integers(min_value=0, max_value=50)), min_size=1, max_size=20
)


@given(conversations, st.booleans(), st.integers(min_value=0, max_value=600))
def test_cut_properties(turns: list[tuple[str, int]], system: bool, budget: int) -> None:
    messages = [msg(role, size) for role, size in turns]
    if system:
        messages.insert(0, msg("system", 7))
    fitted = fit_to_budget(messages, budget, one_token_each)
    kept = fitted.messages
    # The kept prompt is the head plus a suffix of the original: order preserved.
    assert kept[-1] is messages[-1]
    if system:
        assert kept[0] is messages[0]
    assert fitted.prompt_tokens == sum(one_token_each(m) for m in kept)
    assert len(kept) + fitted.dropped == len(messages)
    if fitted.fits is False:
        assert fitted.prompt_tokens > budget
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if users:  # the last question is always sent
        assert messages[users[-1]] in kept
    if fitted.was_cut:
        assert fitted.cut_index is not None
        assert messages[fitted.cut_index] is kept[1 if system else 0]
        # A cut never leaves an answer without its question at the top.
        if users:
            assert kept[1 if system else 0].role == "user"
        # It dropped only what it had to: the whole turn just above the cut would not fit.
        head = 1 if system else 0
        above = max(
            [i for i in range(head, fitted.cut_index) if messages[i].role == "user"] or [head]
        )
        turn_cost = sum(one_token_each(m) for m in messages[above : fitted.cut_index])
        assert fitted.prompt_tokens + turn_cost > budget
