"""What a generation is given by its session: its settings, its one route decision and
how it builds its request (client/services/chat/generation.py runs it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.services.chat.answer_writer import FLUSH_INTERVAL_S
from client.services.chat.loading_stage import LoadEstimate, ModelStateProvider
from client.services.chat.turn_store import Turn
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.planner import Passage, RequestPlan, RouteChoice
from client.store.history import HistoryStore
from client.store.metrics_store import MetricsStore

AnswerFilter = Callable[[str], str]  # answer text in -> the part to show now


@dataclass(frozen=True, slots=True)
class Outgoing:
    """What a turn sends: its plan, and how its answer is shaped."""

    plan: RequestPlan
    answer_filter: AnswerFilter | None = None  # Continue by prompt: drops a restart


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What a generation needs of its session: where it stores, how long it waits."""

    history: HistoryStore
    metrics_store: MetricsStore | None = None
    first_token_timeout_s: float = 60.0  # a cascade's route: its first-token limit
    slow_start_after_s: float = 15.0  # no first token by then: SlowStart (Keep waiting / Cancel)
    fallback_after_s: float = 10.0  # a cascade's route, before the other answers
    stall_timeout_s: float = 15.0
    thresholds: TierThresholds = DEFAULT_THRESHOLDS
    model_state_provider: ModelStateProvider | None = None
    load_estimate: LoadEstimate | None = None  # the model's learned load time, ms
    flush_interval_s: float = FLUSH_INTERVAL_S
    knowledge: KnowledgeStage | None = None  # the retrieving stage, when a conversation has it on
    prompt_budget: int | None = None  # passages get a share of it (knowledge_stage)


# The message's one route decision, made before its turn is stored.
Chooser = Callable[[], Awaitable[RouteChoice]]
# The turn as stored (with that route), the passages the retrieving stage found for it.
RequestBuilder = Callable[[Turn, tuple[Passage, ...], RouteChoice], Awaitable[Outgoing]]
