"""The cascade's moving parts around the planner: a fast and a strong route, the fast
model's classification call, and the fallback rule.

    routes = cascade_routes(fast=Route(b1, "smollm2"), strong=Route(b2, "qwen2.5:7b"))
    plan = plan_request(PlanInput(..., routes=routes))   # plan.route, plan.fallback

The planner decides which route answers (client/services/planning/planner.py, with the rules
of client/services/planning/router.py); when that route fails before its first token (refused,
unreachable, 5xx, queue full, unknown model, first-token timeout) the plan's fallback
answers instead. After the first token nothing is retried: the text is kept and the
user may continue with the other model.
"""

from __future__ import annotations

from dataclasses import replace

from client.backends.base import Backend
from client.backends.errors import TachyError
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, Failed, Token, TokenKind
from client.services.planning.planner import RequestPlan, Route
from client.services.planning.router import CLASSIFY_PROMPT, Classifier, Tier, parse_classification

# How long a cascade's chosen model may take to its first token before the other answers.
# Well past the slow tier (1 s) and a long prefill on a 7B model (2,000 prompt tokens:
# 0.7-1.5 s), with room for a model loaded from the disk cache; the first-token timeout
# of a lone model (60 s, then Keep waiting/Cancel) is for a model with no alternative.
FALLBACK_AFTER_S = 10.0
PREDICTED_MARGIN = 2.0  # a plan predicting a long wait (a very long prompt) gets twice it


def cascade_routes(fast: Route, strong: Route) -> list[Route]:
    """The two candidates, each marked with its tier (fast first: the default)."""
    return [replace(fast, tier=Tier.FAST.value), replace(strong, tier=Tier.STRONG.value)]


def backend_classifier(backend: Backend, model: str) -> Classifier:
    """A classifier asking `model` for one word; cancelling it closes its stream."""

    async def classify(text: str) -> Tier | None:
        request = ChatRequest(
            model=model,
            messages=[ChatMessage("user", CLASSIFY_PROMPT + text)],
            options=GenerationOptions(temperature=0.0, max_tokens=3),
        )
        reply = ""
        async with backend.chat(request) as stream:
            async for event in stream:
                if isinstance(event, Token) and event.kind is TokenKind.ANSWER:
                    reply += event.text
                elif isinstance(event, Failed):
                    return None
        return parse_classification(reply)

    return classify


def falls_back(outcome: Done | Failed | None, got_tokens: bool) -> bool:
    """True when a route's failure should hand the question to the other route: it
    failed before any token arrived (afterwards the text is kept instead)."""
    return isinstance(outcome, Failed) and not got_tokens and _retryable(outcome.error)


def first_token_limit(
    plan: RequestPlan, fallback_after_s: float, limit_s: float | None
) -> float | None:
    """Seconds the plan's route has for its first token: with a fallback, the cascade's
    wait (longer when the plan predicts more), never past the lone model's `limit_s`
    (None: no limit)."""
    if plan.fallback is None or limit_s is None:
        return limit_s
    predicted_s = (plan.predicted_ttft_ms or 0.0) / 1000
    return min(max(fallback_after_s, PREDICTED_MARGIN * predicted_s), limit_s)


def _retryable(error: Exception) -> bool:
    # Every error the backends raise is a TachyError with a sentence; anything else is
    # a bug of this client and should surface, not be hidden by the other model.
    return isinstance(error, TachyError)


def answer_label(route: Route) -> str:
    """The small label on an answer: "fast · SmolLM2-135M"."""
    return f"{route.tier} · {route.model}" if route.tier else route.model
