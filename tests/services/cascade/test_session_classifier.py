"""A cascade session that asks its fast model to classify each question first (the
window's "Let the fast model choose"): within the budget the classifier decides; past
it the rules do and the stage record says so; the stored answer names the model that
answered and the waterfall's understanding stage carries the decision."""

from __future__ import annotations

from typing import Any

from client.services.cascade.cascade import cascade_routes
from client.services.cascade.route_record import route_note
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome
from client.services.planning.planner import Route
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import ScriptedServer, ollama_done, ollama_token

FAST, STRONG = "fast:135m", "strong:7b"


def _session(db: Database, server: ScriptedServer) -> tuple[ChatSession, Any]:
    backend = server.backend()  # one server, two models
    session = ChatSession(backend, FAST, HistoryStore(db), MetricsStore(db))
    session.use_routes(cascade_routes(Route(backend, FAST, "s"), Route(backend, STRONG, "s")))
    # In time, whatever the machine: the default 150 ms budget is a speed goal.
    session.configure(classify=True, classify_budget_ms=60_000)
    return session, backend


def _understanding(db: Database, message_id: int) -> dict[str, Any]:
    (record,) = MetricsStore(db).for_messages([message_id])[message_id]
    return next(s for s in record.stages if s["stage"] == "understanding")


async def test_the_classifier_answering_in_time_chooses_the_route(db: Database) -> None:
    server = ScriptedServer("ollama")
    server.add(ollama_token("strong"), ollama_done())  # the classification
    server.add(ollama_token("A proof."), ollama_done())  # the answer
    session, backend = _session(db, server)
    generation = session.generate(None, "hi")  # the rules would say fast
    async for _event in generation:
        pass
    await backend.aclose()
    assert generation.finished is not None and generation.finished.outcome is Outcome.COMPLETE
    assert [r["model"] for r in server.requests] == [FAST, STRONG]
    assert generation.plan is not None and generation.plan.decision is not None
    assert generation.plan.decision.by == "classifier"
    stored = HistoryStore(db, recover=False).get_message(generation.assistant_message_id or 0)
    assert stored is not None and (stored.model, stored.route) == (STRONG, "strong")
    note = route_note(_understanding(db, stored.id))
    assert note is not None and (note.tier, note.model, note.by) == ("strong", STRONG, "classifier")
    assert note.classifier == "answered" and not note.out_of_budget


async def test_past_its_budget_the_rules_decide_and_the_stage_says_so(db: Database) -> None:
    server = ScriptedServer("ollama")
    server.add(30.0, ollama_token("strong"), ollama_done())  # 30 s: far past the budget
    server.add(ollama_token("Hello."), ollama_done())
    session, backend = _session(db, server)
    session.configure(classify_budget_ms=100)
    generation = session.generate(None, "hi")
    async for _event in generation:
        pass
    await backend.aclose()
    assert generation.finished is not None and generation.finished.text == "Hello."
    assert server.closed_early >= 1  # the classification was cut, not awaited
    assert [r["model"] for r in server.requests] == [FAST, FAST]
    understanding = _understanding(db, generation.assistant_message_id or 0)
    note = route_note(understanding)
    assert note is not None and note.out_of_budget and note.by == "rules"
    assert (note.tier, note.model, note.rules_reason) == ("fast", FAST, "a short everyday question")
    assert note.decided_ms is not None and note.decided_ms >= 100
    # the decision happened inside the understanding stage, before the request
    assert understanding["start_ms"] <= -100


async def test_off_or_overridden_no_classification_is_asked(db: Database) -> None:
    from client.services.planning.router import Tier, chosen_by_user

    server = ScriptedServer("ollama")
    server.add(ollama_token("One."), ollama_done()).add(ollama_token("Two."), ollama_done())
    session, backend = _session(db, server)
    first = session.generate(None, "hi", decision=chosen_by_user(Tier.STRONG))
    async for _event in first:
        pass
    session.configure(classify=False)
    second = session.generate(first.conversation_id, "hello")
    async for _event in second:
        pass
    await backend.aclose()
    assert [r["model"] for r in server.requests] == [STRONG, FAST]  # no classification
    note = route_note(_understanding(db, second.assistant_message_id or 0))
    assert note is not None and note.by == "rules" and note.classifier == ""


async def test_the_route_is_decided_once_and_the_answer_stored_with_it(
    db: Database, monkeypatch: Any
) -> None:
    """The classifier's choice differs from the rules': the answer is stored naming the
    plan's route from the start, and nothing renames it afterwards."""
    from client.core.events import Token

    renamed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(HistoryStore, "set_answerer", lambda _self, *args: renamed.append(args))
    server = ScriptedServer("ollama")
    server.add(ollama_token("strong"), ollama_done())  # the classification
    server.add(ollama_token("A proof."), ollama_done())
    session, backend = _session(db, server)
    generation = session.generate(None, "hi")  # the rules would say fast
    async for event in generation:
        if isinstance(event, Token):  # streaming: the stored answer names its writer now
            stored = HistoryStore(db, recover=False).get_message(
                generation.assistant_message_id or 0
            )
            assert stored is not None and (stored.model, stored.route) == (STRONG, "strong")
    await backend.aclose()
    assert generation.plan is not None and generation.chosen is not None
    assert generation.plan.route == generation.chosen.route  # the plan kept the one decision
    assert renamed == []
