"""`tachy chat --pool NAME|URL,URL [--policy P] "question"`: one answer from a pool.

The answer streams as from one server; stderr then says which server gave it and how
many of its servers were asked (a hedge or a failover asks more than one).
"""

from __future__ import annotations

import argparse
import sys

from client.cli.common import chat_common as chat
from client.cli.common import pool_args
from client.core.events import Failed
from client.services.fleet.fleet_stream import FleetStream
from client.services.knowledge.retrieval import Retrieval, as_passages
from client.services.servers.servers import ServerChoice


async def run(args: argparse.Namespace, text: str, found: Retrieval | None) -> int:
    tachy, db = chat.learning_root()  # its predictors learn from the answer
    try:
        pool = pool_args.find_pool(tachy, args, args.policy)
        key = chat.api_key(args.api_key_env)
        async with pool_args.OpenPool(tachy, pool, key) as backend:
            # A member naming its own model asks for it whatever this one is.
            model = pool.model or await chat.first_model(backend)
            where = ServerChoice(pool.name, backend.base_url, backend.api)
            session = tachy.use(backend, model, where)
            passages = as_passages(found.passages) if found is not None else []
            session.configure(system_prompt=args.system or None, options=chat.options(args))
            plan = session.plan_question([], text, passages=passages)
            request = plan.request()
            stream = backend.answer(request, chat.timeouts(args))
            await _answer(args, stream)
            # The root's policies hear the answer as the window's: the predictor learns.
            tachy.events.publish(chat.answer_finished(plan, request, stream))
            if args.json and isinstance(stream.outcome, Failed):
                chat.say(stream.outcome.message)
            _say_server(stream)
            return chat.exit_code(stream)
    finally:
        try:
            await tachy.aclose()  # saves what the predictor learned
        finally:
            db.close()


async def _answer(args: argparse.Namespace, stream: FleetStream) -> None:
    printer: chat.JsonPrinter | chat.TextPrinter
    printer = (
        chat.JsonPrinter(sys.stdout) if args.json else chat.TextPrinter(sys.stdout, args.stages)
    )
    try:
        async with stream:
            async for event in stream:
                printer.show(event, stream)
    finally:
        printer.finish(stream)


def _say_server(stream: FleetStream) -> None:
    sent = f"{stream.sent} servers asked" if stream.sent > 1 else "1 server asked"
    if stream.winner is not None:
        chat.say(f"answered by {stream.winner_name} ({sent})")
    else:
        chat.say(f"no server of the pool answered ({sent})")
