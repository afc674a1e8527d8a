"""A session with a cascade, through two lab servers (a fast model and a strong one):
the route per question, the user's override, and the fallback before the first token
in every before-the-stream case, with both attempts in the stored waterfall."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from client.backends import backend_for
from client.core.events import Token, TokenKind
from client.lab import LabServer, scenario_from_dict
from client.services.cascade.cascade import FALLBACK_AFTER_S, cascade_routes, first_token_limit
from client.services.chat.session import ChatSession, SessionSettings
from client.services.chat.session_events import Finished, NextStep, Outcome, SlowStart
from client.services.planning.planner import PlanInput, PlanSettings, Route, plan_request
from client.services.planning.router import Tier, chosen_by_user
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.backends.test_live_http import closed_port

FAST = {"model": "fast-lab:135m", "ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1}
STRONG = {"model": "strong-lab:7b", "ttft": 60, "tpot_ms": 2, "output_tokens": 6, "seed": 2}
PROOF = "Prove that √2 is irrational, step by step"


class Labs:
    def __init__(self, db: Database) -> None:
        self.history = HistoryStore(db)
        self.metrics = MetricsStore(db)
        self.labs: list[LabServer] = []
        self.backends: list[Any] = []

    async def route(self, dials: dict[str, Any], name: str) -> Route:
        lab = LabServer(scenario_from_dict(dials))
        self.labs.append(lab)
        backend = backend_for(await lab.start(), "openai")
        self.backends.append(backend)
        return Route(backend, dials["model"], name)

    def session(self, fast: Route, strong: Route) -> ChatSession:
        session = ChatSession(
            fast.backend,
            fast.model,
            self.history,
            self.metrics,
            settings=SessionSettings(stall_timeout_s=0.5),
        )
        session.use_routes(cascade_routes(fast, strong))
        return session

    async def close(self) -> None:
        for backend in self.backends:
            await backend.aclose()
        for lab in self.labs:
            await lab.stop()


@pytest.fixture
async def labs(db: Database) -> AsyncIterator[Labs]:
    made = Labs(db)
    yield made
    await made.close()


async def _run(generation: Any) -> tuple[list[Any], Finished]:
    events = [event async for event in generation]
    return events, events[-1]


def _text(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token) and e.kind is TokenKind.ANSWER)


async def test_each_question_gets_its_route_and_the_answer_its_model(labs: Labs) -> None:
    session = labs.session(await labs.route(FAST, "fast lab"), await labs.route(STRONG, "lab"))
    hi = session.generate(None, "hi")
    _events, finished = await _run(hi)
    assert finished.outcome is Outcome.COMPLETE
    assert hi.route is not None and hi.route.model == "fast-lab:135m" and hi.fell_back is None
    proof = session.generate(hi.conversation_id, PROOF)
    await _run(proof)
    assert proof.route is not None and proof.route.tier == "strong"
    assert labs.labs[0].stats.requests == 1 and labs.labs[1].stats.requests == 1
    stored = labs.history.get_message(proof.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and (stored.model, stored.route) == ("strong-lab:7b", "strong")


async def test_ask_the_strong_model_and_re_ask_with_the_other_kept_as_a_version(
    labs: Labs,
) -> None:
    session = labs.session(await labs.route(FAST, "fast lab"), await labs.route(STRONG, "lab"))
    first = session.generate(None, "hi", decision=chosen_by_user(Tier.STRONG))
    await _run(first)
    assert first.route is not None and first.route.tier == "strong"
    assert first.plan is not None and "asked for the strong model" in first.plan.why
    assert first.assistant_message_id is not None
    again = session.regenerate(first.assistant_message_id, chosen_by_user(Tier.FAST))
    await _run(again)
    assert again.route is not None and again.route.tier == "fast"
    versions = labs.history.siblings(first.assistant_message_id)
    assert [m.model for m in versions] == ["strong-lab:7b", "fast-lab:135m"]


FAULTS = {
    "http_error 500": {"kind": "http_error", "status": 500},
    "queue_full 503": {"kind": "queue_full"},
    "unknown_model": {"kind": "unknown_model"},
    "html_error 502": {"kind": "html_error"},
}


@pytest.mark.parametrize("fault", FAULTS)
async def test_the_strong_model_failing_before_its_first_token_falls_back(
    fault: str, labs: Labs
) -> None:
    fast = await labs.route(FAST, "fast lab")
    strong = await labs.route({**STRONG, "fault": FAULTS[fault]}, "lab")
    session = labs.session(fast, strong)
    generation = session.generate(None, PROOF)
    events, finished = await _run(generation)
    assert finished.outcome is Outcome.COMPLETE and finished.text == _text(events) != ""
    fell_back = generation.fell_back
    assert fell_back is not None and fell_back.failed_tier == "strong"
    assert "the fast model (fast-lab:135m) answered" in fell_back.note
    assert generation.route is not None and generation.route.tier == "fast"
    # the stored answer names the model that wrote it, not the one that failed
    answer = labs.history.get_message(generation.assistant_message_id or 0)
    assert answer is not None and (answer.model, answer.route) == ("fast-lab:135m", "fast")
    assert answer.server == "fast lab" and answer.content == finished.text
    # both attempts in the waterfall: the strong model's understanding, then the fast's
    record = labs.metrics.for_messages([generation.assistant_message_id or 0])
    (stored,) = record[generation.assistant_message_id or 0]
    assert stored.model == "fast-lab:135m"
    understanding = [s for s in stored.stages if s["stage"] == "understanding"]
    assert len(understanding) == 2 and understanding[1].get("attempt") == 2
    assert understanding[0]["end_ms"] <= understanding[1]["start_ms"]
    assert stored.ttft_ms is not None and stored.ttft_ms >= understanding[1]["start_ms"]


async def test_a_stopped_strong_server_falls_back_to_the_fast_one(labs: Labs) -> None:
    fast = await labs.route(FAST, "fast lab")
    dead = backend_for(f"http://127.0.0.1:{closed_port()}", "openai")
    labs.backends.append(dead)
    session = labs.session(fast, Route(dead, "strong-lab:7b", "stopped"))
    generation = session.generate(None, PROOF)
    _events, finished = await _run(generation)
    assert finished.outcome is Outcome.COMPLETE and finished.text
    assert generation.fell_back is not None and "reach" in generation.fell_back.error


async def test_both_failing_ends_as_a_failure_once(labs: Labs) -> None:
    fast = await labs.route({**FAST, "fault": {"kind": "queue_full"}}, "fast lab")
    strong = await labs.route({**STRONG, "fault": {"kind": "http_error", "status": 500}}, "lab")
    session = labs.session(fast, strong)
    generation = session.generate(None, "hi")
    _events, finished = await _run(generation)
    assert finished.outcome is Outcome.FAILED and finished.error_message
    assert generation.fell_back is not None and generation.fell_back.failed_tier == "fast"


async def test_after_tokens_the_text_stays_and_continue_with_the_other_model(
    labs: Labs,
) -> None:
    fast = await labs.route(FAST, "fast lab")
    strong = await labs.route({**STRONG, "fault": {"kind": "reset", "after_tokens": 3}}, "lab")
    session = labs.session(fast, strong)
    generation = session.generate(None, PROOF)
    events, finished = await _run(generation)
    assert finished.outcome is Outcome.INTERRUPTED and generation.fell_back is None
    assert finished.text == _text(events) != ""
    assert finished.next_steps[:2] == (NextStep.CONTINUE, NextStep.CONTINUE_OTHER)
    assert labs.labs[0].stats.requests == 0  # nothing was retried on the fast model
    assert generation.assistant_message_id is not None
    more = session.continue_message(generation.assistant_message_id, chosen_by_user(Tier.FAST))
    _more_events, more_finished = await _run(more)
    assert more.route is not None and more.route.tier == "fast"
    assert more_finished.text.startswith(finished.text) and len(more_finished.text) > len(
        finished.text
    )


async def test_no_first_token_within_the_cascade_wait_falls_back_and_closes_the_request(
    labs: Labs,
) -> None:
    fast = await labs.route(FAST, "fast lab")
    strong = await labs.route({**STRONG, "fault": {"kind": "never_answer"}}, "lab")
    session = labs.session(fast, strong)
    session.configure(fallback_after_s=0.3)  # the lone model's Keep waiting stays at its 60 s
    generation = session.generate(None, PROOF)
    events, finished = await _run(generation)
    assert not any(isinstance(e, SlowStart) for e in events)  # no Keep waiting / Cancel
    assert finished.outcome is Outcome.COMPLETE and finished.text == _text(events) != ""
    fell_back = generation.fell_back
    assert fell_back is not None and fell_back.failed_tier == "strong"
    assert fell_back.error == "No first token came within 0.3 s."
    assert "the fast model (fast-lab:135m) answered" in fell_back.note
    assert labs.labs[1].stats.held == 0  # the strong model's request was closed
    record = labs.metrics.for_messages([generation.assistant_message_id or 0])
    (stored,) = record[generation.assistant_message_id or 0]
    understanding = [s for s in stored.stages if s["stage"] == "understanding"]
    assert len(understanding) == 2 and understanding[1].get("attempt") == 2
    assert understanding[0]["end_ms"] - understanding[0]["start_ms"] >= 250
    assert stored.ttft_ms is not None and stored.ttft_ms >= 300  # counted from the first


def test_the_cascade_wait_is_short_longer_for_a_long_prediction_and_within_the_limit() -> None:
    route = Route(backend_for("http://127.0.0.1:9", "openai"), "m")
    plan = plan_request(PlanInput([], "hi", PlanSettings(), cascade_routes(route, route)))
    assert plan.fallback is not None and FALLBACK_AFTER_S == 10.0
    assert first_token_limit(plan, FALLBACK_AFTER_S, 60.0) == 10.0
    assert first_token_limit(plan, FALLBACK_AFTER_S, 4.0) == 4.0  # never past the limit
    assert first_token_limit(plan, FALLBACK_AFTER_S, None) is None  # "wait forever" holds
    slow = replace(plan, predicted_ttft_ms=8000.0)
    assert first_token_limit(slow, FALLBACK_AFTER_S, 60.0) == 16.0
    alone = replace(plan, fallback=None)
    assert first_token_limit(alone, FALLBACK_AFTER_S, 60.0) == 60.0  # no cascade: as before
