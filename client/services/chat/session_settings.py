"""What a chat session is set to: one immutable value, replaced as a whole.

    session.configure(prompt_budget=4096, keep_alive="30m")

Only client.services changes it (the composition root, the warming policy, the
cascade); the window asks them. A request takes the value as it was when it started.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.core.conversation import GenerationOptions
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.services.cascade.cascade import FALLBACK_AFTER_S
from client.services.chat.answer_writer import FLUSH_INTERVAL_S
from client.services.planning.router import DEFAULT_BUDGET_MS

MAX_MODEL_CALLS = 8  # model calls in one turn (with tools: call, tools, call ...)


@dataclass(frozen=True, slots=True)
class SessionSettings:
    system_prompt: str | None = None  # used when a question is given none
    options: GenerationOptions = field(default_factory=GenerationOptions)
    keep_alive: str | int | None = None  # Ollama: how long to keep the model
    think: bool | str | None = None  # Ollama: reasoning switch
    # None: ask the backend whether its server understands continue_final_message.
    continue_final_message: bool | None = None
    # Prompt budget in tokens (client.core.budget.prompt_budget); None sends the whole
    # conversation. The oldest turns are dropped first.
    prompt_budget: int | None = None
    # History compression (client/services/planning/compression.py): each conversation's
    # summary of its older turns, sent instead of them while they are unchanged.
    compress_history: bool = True
    # A cascade's fast model classifies each question within its budget (the Cascade
    # menu); past it, or when off, the router's rules decide.
    classify: bool = False
    classify_budget_ms: float = DEFAULT_BUDGET_MS
    # No first token (not even a byte) by then: Keep waiting / Cancel are offered.
    slow_start_after_s: float = 15.0
    # A cascade's chosen model never waits past this for its first token.
    first_token_timeout_s: float = 60.0
    # A cascade's chosen model gets this long for its first token; then the other answers.
    fallback_after_s: float = FALLBACK_AFTER_S
    stall_timeout_s: float = 15.0
    thresholds: TierThresholds = DEFAULT_THRESHOLDS
    flush_interval_s: float = FLUSH_INTERVAL_S
    # Model calls in one turn: with tools, call -> tools -> call ... stops here.
    max_model_calls: int = MAX_MODEL_CALLS
