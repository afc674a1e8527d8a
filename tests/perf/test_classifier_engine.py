"""The cascade's classifier on the local engine, against the rules on the same labelled
questions: how often SmolLM2-135M's one word is usable and right, how long it takes,
and what the router decides with the 150 ms budget.

This is why the window's "Let the fast model choose" is off by default: the rules
decide in well under a millisecond, and the classification adds up to its budget to
every first token. If a future engine or model made the budgeted classifier right more
often than the rules, this test fails and the default should be looked at again.
"""

from __future__ import annotations

import statistics
import time

import pytest

from client.backends import OpenAICompatBackend
from client.backends.engine.local_engine import LocalEngine
from client.services.cascade.cascade import backend_classifier
from client.services.planning.router import DEFAULT_BUDGET_MS, decide, route_by_rules
from tests.services.router_questions import QUESTIONS

pytestmark = [pytest.mark.perf, pytest.mark.engine]


async def test_the_budgeted_classifier_is_not_right_more_often_than_the_rules(
    local_engine: LocalEngine,
) -> None:
    backend = OpenAICompatBackend(local_engine.url)
    classify = backend_classifier(backend, local_engine.model)
    try:
        await classify("hi")  # the model loaded and its prompt cached, as in a session
        waits: list[float] = []
        usable = right_alone = right_budgeted = decided_by_it = 0
        for text, tier in QUESTIONS:
            started = time.perf_counter()
            word = await classify(text)
            waits.append((time.perf_counter() - started) * 1000)
            usable += word is not None
            right_alone += word is not None and word.value == tier
            decision = await decide(text, classify, DEFAULT_BUDGET_MS)
            decided_by_it += decision.by == "classifier"
            right_budgeted += decision.tier.value == tier
    finally:
        await backend.aclose()
    n = len(QUESTIONS)
    right_rules = sum(route_by_rules(text).tier.value == tier for text, tier in QUESTIONS)
    print(
        f"\n{n} questions: rules right {right_rules / n:.1%}; classifier alone: a usable word "
        f"{usable}/{n}, right {right_alone / n:.1%}, median {statistics.median(waits):.0f} ms "
        f"(P90 {statistics.quantiles(waits, n=10)[-1]:.0f} ms); with the "
        f"{DEFAULT_BUDGET_MS:.0f} ms budget it decided {decided_by_it}/{n}, "
        f"decisions right {right_budgeted / n:.1%}"
    )
    assert right_budgeted <= right_rules
