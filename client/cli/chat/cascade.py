"""`tachy chat --fast URL#MODEL --strong URL#MODEL "question"`: one message to a cascade.

The planner routes the question (its rules, or with --classify the fast model's word
within --classify-budget-ms); --json prints the decision first:

    {"event": "route", "route": "fast", "model": "SmolLM2-135M", "reason": ..., "decided_ms": 0.1}

When the chosen route fails before its first token (or gives none within the cascade's
wait: 10 s, never past --first-token-timeout), the other answers and --json
prints {"event": "fallback", "from": "strong", "to": "fast", "error": "..."}; the exit
code is the answer's (0 when the other model answered).

With --image the question goes to a route whose model can see (as the window sends
it), and a fallback that cannot see is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from client.cli.common import cascade_args, images
from client.cli.common import chat_common as chat
from client.core.conversation import ChatRequest
from client.core.events import Failed
from client.core.images import Attachment
from client.services.cascade.cascade import (
    FALLBACK_AFTER_S,
    answer_label,
    backend_classifier,
    first_token_limit,
)
from client.services.cascade.fallback import FallbackStream, FellBack
from client.services.images.vision import ModelVision
from client.services.knowledge.retrieval import Retrieval, as_passages
from client.services.planning.planner import (
    PlanInput,
    PlanSettings,
    RequestPlan,
    Route,
    RouteChoice,
    choose_route,
    plan_request,
)
from client.services.planning.router import RouteDecision, decide


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cascade_args.add_arguments(parser)
    parser.add_argument(
        "--classify",
        action="store_true",
        help="with a cascade: ask the fast model to classify the question first",
    )
    parser.add_argument(
        "--classify-budget-ms",
        type=float,
        default=150.0,
        metavar="MS",
        help="the classification's hard budget; past it the rules decide (150)",
    )


async def run(args: argparse.Namespace, text: str, found: Retrieval | None) -> int:
    async with cascade_args.CascadeRoutes(args.fast, args.strong, _key(args)) as routes:
        decision = await _decision(args, text, routes)
        vision = ModelVision()
        choice = choose_route(routes, text, decision)
        attached: list[Attachment] = []
        if args.image:  # to a model that can see, as the window sends it
            choice = await vision.route_for_images(choice, routes)
            support = await vision.support(choice.route)
            attached = await images.prepare(args, choice.route.backend, choice.route.model, support)
            await vision.ask_all(routes)  # a fallback that cannot see is left out
        given = _given(args, text, found, routes, choice)
        plan = plan_request(
            replace(given, images=tuple(a.sent for a in attached), sees=vision.may_see)
        )
        _show_route(args, plan)
        timeouts = chat.timeouts(args)
        limit = first_token_limit(plan, FALLBACK_AFTER_S, timeouts.first_byte_s)
        # The session's own fallback stream: the other route answers on the same
        # timeline, so the time to first token counts from the first request here too.
        request = plan.request()  # built once: sent, and heard by the root's policies
        on_fallback = lambda fell: _say_fallback(args, fell)  # noqa: E731
        stream = FallbackStream(plan, timeouts, on_fallback, limit, request)
        await _answer(args, stream)
        await _learn(plan, request, stream)
        if args.json and isinstance(stream.outcome, Failed):
            chat.say(stream.outcome.message)
        return chat.exit_code(stream)


async def _learn(plan: RequestPlan, request: ChatRequest, stream: FallbackStream) -> None:
    """The root's policies hear the answer as the window's: the predictor of the
    model that answered (the fallback's, when the other model took over) learns."""
    fell = stream.fell_back
    plan, request = (fell.plan, fell.request) if fell is not None else (plan, request)
    tachy, db = chat.learning_root()
    try:
        tachy.events.publish(chat.answer_finished(plan, request, stream))
        await tachy.aclose()  # saves what the predictor learned
    finally:
        db.close()


def _key(args: argparse.Namespace) -> str | None:
    return chat.api_key(getattr(args, "api_key_env", None))


async def _decision(
    args: argparse.Namespace, text: str, routes: list[Route]
) -> RouteDecision | None:
    """The classifier's decision within its budget, else None: the planner's rules."""
    if not args.classify:
        return None
    fast = routes[0]
    return await decide(text, backend_classifier(fast.backend, fast.model), args.classify_budget_ms)


def _given(
    args: argparse.Namespace,
    text: str,
    found: Retrieval | None,
    routes: list[Route],
    chosen: RouteChoice,
) -> PlanInput:
    passages = as_passages(found.passages) if found is not None else []
    settings = PlanSettings(system_prompt=args.system or None, options=chat.options(args))
    return PlanInput([], text, settings, routes, passages=passages, chosen=chosen)


def _show_route(args: argparse.Namespace, plan: RequestPlan) -> None:
    decision = plan.decision
    assert decision is not None  # a cascade's plan always has one
    # The rules' reason, or why an image went to the other model.
    reason = decision.reason if plan.route.tier == decision.tier.value else plan.why
    if args.json:
        record = {
            "event": "route",
            "route": plan.route.tier,
            "model": plan.route.model,
            "reason": reason,
            "decided_ms": decision.decided_ms,
        }
        _line(record)
    else:
        chat.say(f"{answer_label(plan.route)} ({reason})")


def _say_fallback(args: argparse.Namespace, fell: FellBack) -> None:
    to = fell.plan.route
    if args.json:
        _line({"event": "fallback", "from": fell.failed_tier, "to": to.tier, "error": fell.error})
    chat.say(
        f"The {fell.failed_tier} model ({fell.failed_model}) failed before answering: "
        f"{fell.error} The {to.tier} model ({to.model}) answers instead."
    )


async def _answer(args: argparse.Namespace, stream: FallbackStream) -> None:
    """Streams the answer; a failure the other route took over never comes through
    (the fallback line says it)."""
    printer: chat.JsonPrinter | chat.TextPrinter
    printer = (
        chat.JsonPrinter(sys.stdout) if args.json else chat.TextPrinter(sys.stdout, args.stages)
    )
    try:
        async with stream, chat.stall_watch(printer, stream):
            ticking = args.json or args.stages  # the states before the first byte
            async for event in chat.with_ticks(stream) if ticking else stream:
                printer.show(event, stream)
    finally:
        printer.finish(stream)


def _line(record: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()
