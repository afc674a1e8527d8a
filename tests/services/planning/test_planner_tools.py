"""The offered tools' definitions in the plan: every request with tools carries them
before the chat, so they count in the prompt budget (the history is cut with them
counted) and in the predicted wait (the server reads them before the first token)."""

from __future__ import annotations

from client.core.budget import estimate_tokens
from client.core.conversation import ChatMessage
from client.core.tools import ToolSpec
from client.services.planning.planner import CachedPrompt, PlanSettings, plan_request
from tests.services.planning.test_planner import HISTORY, plan_for

TOOLS = 120  # the definitions' tokens (services/tools tool_offer.py counts them)
SPECS = (ToolSpec("add", "Add two numbers."),)  # the definitions as sent


def ttft(tokens: int) -> float:
    return 10.0 + tokens


def test_the_tools_count_in_the_prompt_and_the_predicted_wait() -> None:
    plain = plan_request(plan_for(ttft=ttft))
    with_tools = plan_request(plan_for(ttft=ttft, tool_tokens=TOOLS))
    assert with_tools.messages == plain.messages  # the definitions travel beside them
    assert with_tools.prompt_tokens == plain.prompt_tokens + TOOLS
    assert with_tools.new_prompt_tokens == plain.new_prompt_tokens + TOOLS
    assert with_tools.predicted_ttft_ms == plain.predicted_ttft_ms + TOOLS  # type: ignore[operator]


def test_the_budget_cuts_the_history_with_the_tools_counted() -> None:
    whole = plan_request(plan_for()).prompt_tokens
    settings = PlanSettings("Be brief.", budget=whole)  # room for the chat, not the tools
    first_turn = sum(estimate_tokens(m) for m in HISTORY[:2])
    plain = plan_request(plan_for(settings=settings))
    with_tools = plan_request(plan_for(settings=settings, tool_tokens=first_turn))
    assert plain.cut.count == 0
    assert with_tools.cut.dropped == tuple(HISTORY[:2])  # the oldest turn makes room
    assert with_tools.prompt_tokens <= whole
    assert with_tools.fitted.fits


def test_a_cached_prompt_holds_the_tools_sent_before_it() -> None:
    cold = plan_request(plan_for(tool_tokens=TOOLS, tools=SPECS))
    assert cold.tools == SPECS and cold.request().tools == SPECS
    held = CachedPrompt(cold.prefix, tools=SPECS)
    cached = plan_request(plan_for(tool_tokens=TOOLS, tools=SPECS, cached=held))
    assert cached.new_prompt_tokens == estimate_tokens(ChatMessage("user", "And the sun?"))


def test_a_prompt_cached_with_other_tools_holds_none_of_it() -> None:
    """Templates put the definitions before the chat: other tools, another start."""
    prefix = plan_request(plan_for()).prefix
    with_tools = CachedPrompt(prefix, tools=SPECS)
    assert with_tools.holds(prefix, SPECS)
    assert not with_tools.holds(prefix) and with_tools.shared(prefix) == 0  # turned off
    assert CachedPrompt(prefix).shared(prefix, SPECS) == 0  # turned on
    changed = (ToolSpec("add", "Add two numbers, exactly."),)  # a server listed it anew
    assert with_tools.shared(prefix, changed) == 0
    plain = plan_request(plan_for())
    switched_off = plan_request(plan_for(cached=with_tools))
    assert switched_off.new_prompt_tokens == plain.prompt_tokens  # all of it read anew
    switched_on = plan_request(
        plan_for(tool_tokens=TOOLS, tools=SPECS, cached=CachedPrompt(prefix))
    )
    assert switched_on.new_prompt_tokens == plain.prompt_tokens + TOOLS
