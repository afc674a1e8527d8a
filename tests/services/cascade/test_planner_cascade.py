"""The planner picks a cascade's route (rules or a decision made before) and its fallback."""

from __future__ import annotations

from client.backends.errors import BackendUnreachable
from client.core.events import Done, DoneReason, Failed
from client.services.cascade.cascade import answer_label, cascade_routes, falls_back
from client.services.planning.planner import PlanInput, PlanSettings, Route, plan_request
from client.services.planning.router import Tier, chosen_by_user
from tests.services.scripted_server import ScriptedServer


def _routes() -> list[Route]:
    fast = Route(ScriptedServer().backend(), "SmolLM2-135M", "local", is_local=True)
    strong = Route(ScriptedServer("openai").backend(), "qwen2.5-7b", "lab")
    return cascade_routes(fast, strong)


def test_hi_goes_to_the_fast_model_with_the_strong_one_as_fallback() -> None:
    routes = _routes()
    plan = plan_request(PlanInput([], "hi", PlanSettings(), routes))
    assert plan.route.model == "SmolLM2-135M" and plan.route.tier == "fast"
    assert plan.fallback is not None and plan.fallback.model == "qwen2.5-7b"
    assert plan.why.startswith("fast: ")
    assert plan.request().model == "SmolLM2-135M"
    assert answer_label(plan.route) == "fast · SmolLM2-135M"


def test_a_proof_goes_to_the_strong_model() -> None:
    text = "Prove that √2 is irrational, step by step"
    plan = plan_request(PlanInput([], text, PlanSettings(), _routes()))
    assert plan.route.tier == "strong" and plan.request().model == "qwen2.5-7b"
    assert plan.decision is not None and "prove" in plan.decision.reason
    assert plan.fallback is not None and plan.fallback.tier == "fast"


def test_a_decision_made_before_planning_wins_over_the_rules() -> None:
    given = PlanInput([], "hi", PlanSettings(), _routes(), decision=chosen_by_user(Tier.STRONG))
    plan = plan_request(given)
    assert plan.route.tier == "strong"
    assert "asked for the strong model" in plan.why


def test_without_a_cascade_nothing_changes() -> None:
    route = Route(ScriptedServer().backend(), "m")
    plan = plan_request(PlanInput([], "Prove it", PlanSettings(), [route]))
    assert plan.route is route and plan.fallback is None and plan.decision is None
    assert plan.why == "the server and model chosen"


def test_only_a_failure_before_any_token_falls_back() -> None:
    failed = Failed(BackendUnreachable("Could not connect."))
    assert falls_back(failed, got_tokens=False)
    assert not falls_back(failed, got_tokens=True)
    assert not falls_back(Done(DoneReason.STOP, "x"), got_tokens=False)
    assert not falls_back(Failed(RuntimeError("a bug")), got_tokens=False)
