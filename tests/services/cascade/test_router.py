"""The cascade's router: the rules on a labelled set, and the classifier's hard budget."""

from __future__ import annotations

import asyncio

import pytest

from client.services.planning.router import (
    Tier,
    decide,
    parse_classification,
    route_by_rules,
)
from tests.services.router_questions import QUESTIONS
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

ACCURACY_FLOOR = 0.85


def test_the_set_is_large_and_mixed() -> None:
    assert len(QUESTIONS) >= 80
    chinese = [q for q, _ in QUESTIONS if any("\u4e00" <= c <= "\u9fff" for c in q)]
    assert len(chinese) >= 25
    assert {label for _, label in QUESTIONS} == {"fast", "strong"}


def test_rules_alone_route_at_least_85_percent_of_the_labelled_set() -> None:
    misses = [(q, label) for q, label in QUESTIONS if route_by_rules(q).tier.value != label]
    accuracy = 1 - len(misses) / len(QUESTIONS)
    print(f"\nrouter accuracy (rules alone): {accuracy:.1%} of {len(QUESTIONS)} questions")
    for question, label in misses:
        print(f"  missed ({label}): {question[:60]!r}")
    assert accuracy >= ACCURACY_FLOOR


@pytest.mark.parametrize(
    ("text", "tier", "reason"),
    [
        ("hi", Tier.FAST, "a short everyday question"),
        ("Prove that √2 is irrational, step by step", Tier.STRONG, "prove"),
        ("用Python写一个快速排序", Tier.STRONG, "code"),
        ("Solve x^2 - 5x + 6 = 0", Tier.STRONG, "maths"),
        ("把这句话翻译成英文：我喜欢学习", Tier.STRONG, "translation"),
        ("Who is he? Where is he?", Tier.STRONG, "several questions"),
        ("word " * 61, Tier.STRONG, "long"),
    ],
)
def test_each_rule_names_itself(text: str, tier: Tier, reason: str) -> None:
    decision = route_by_rules(text)
    assert decision.tier is tier
    assert reason in decision.reason
    assert decision.by == "rules"


async def test_a_classifier_within_budget_decides() -> None:
    async def classify(text: str) -> Tier:
        await asyncio.sleep(0.01)
        return Tier.STRONG

    decision = await decide("hi", classify, budget_ms=60_000)  # a busy machine's 10 ms
    assert decision.tier is Tier.STRONG
    assert decision.by == "classifier"
    assert decision.decided_ms >= 10


async def test_a_slow_scripted_classifier_is_cut_at_the_budget_and_the_rules_decide() -> None:
    # The fast model's server takes 30 s to answer the classification call: the budget
    # ends first on any machine.
    server = ScriptedServer("ollama").add(30.0, ollama_token("strong"), ollama_done())
    backend = server.backend()
    from client.services.cascade.cascade import backend_classifier

    classify = backend_classifier(backend, MODEL)
    decision = await decide("hi", classify, budget_ms=150)
    await backend.aclose()
    assert decision.tier is Tier.FAST  # the rules' answer, not the classifier's
    assert "the classifier took over 150 ms" in decision.reason
    assert decision.by == "rules"
    assert decision.decided_ms >= 150
    assert server.closed_early == 1  # the classification stream was closed, not awaited
    assert server.requests[0]["options"]["num_predict"] <= 3


async def test_a_scripted_classifier_answering_in_time_decides() -> None:
    server = ScriptedServer("ollama").add(ollama_token(" strong"), ollama_done())
    backend = server.backend()
    from client.services.cascade.cascade import backend_classifier

    decision = await decide("hi", backend_classifier(backend, MODEL), budget_ms=60_000)
    await backend.aclose()
    assert decision.tier is Tier.STRONG and decision.by == "classifier"


async def test_a_failing_classifier_leaves_the_rules() -> None:
    async def classify(text: str) -> Tier:
        raise RuntimeError("boom")

    decision = await decide("Compare TCP and UDP", classify)
    assert decision.tier is Tier.STRONG
    assert "the classifier failed" in decision.reason


@pytest.mark.parametrize(
    ("reply", "tier"),
    [("fast", Tier.FAST), (" Strong.", Tier.STRONG), ("fast or strong", None), ("", None)],
)
def test_parse_classification(reply: str, tier: Tier | None) -> None:
    assert parse_classification(reply) is tier
