"""`tachy chat`: send one message and stream the answer to the terminal.
May import: common, client.services, client.backends, client.core.

    tachy chat --url http://127.0.0.1:11434 -m llama3.2 "Why is the sky blue?"

stdout gets exactly the model's text as it arrives (or, with --json, one JSON object
per event and a final metrics object); stderr gets one summary line. Ctrl-C stops the
generation (the connection is closed, so the server stops), keeps what was printed
and exits 130. Exit codes: 0 done, 1 error, 2 unreachable, 3 interrupted, 130 stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence

from client.backends import discover_local_servers, make_backend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.base import Backend, ModelInfo
from client.backends.engine.local_engine import LocalEngineUnavailable
from client.backends.errors import TachyError
from client.cli.chat import cascade as chat_cascade
from client.cli.chat import kb as chat_kb
from client.cli.chat import pool as chat_pool
from client.cli.chat import tools as chat_tools
from client.cli.common import cascade_args, images, pool_args
from client.cli.common.chat_common import (
    EXIT_FAILED,
    EXIT_STOPPED,
    EXIT_UNREACHABLE,
    JsonPrinter,
    TextPrinter,
    answer_finished,
    api_key,
    exit_code,
    failure_exit,
    first_listed,
    learning_root,
    options,
    prefill_line,
    say,
    stall_watch,
    summary_line,
    timeouts,
    with_ticks,
)
from client.cli.common.server_wait import LOAD_WAIT_S, ModelWait
from client.core.events import Failed
from client.core.images import Attachment
from client.services.chat.session import ChatSession
from client.services.chat.stream_opener import LoadingRetryStream, PlainOpener
from client.services.knowledge.retrieval import Retrieval, as_passages
from client.services.planning.planner import RequestPlan
from client.services.servers.servers import ServerChoice as Server

__all__ = ["EXIT_FAILED", "EXIT_UNREACHABLE", "prefill_line", "summary_line"]
_say = say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", help="the message to send ('-' reads it from stdin)")
    add_server_arguments(parser)
    parser.add_argument("-m", "--model", help="model name (default: the server's first)")
    parser.add_argument("--system", help="a system message to send first")
    parser.add_argument("--max-tokens", type=int, metavar="N", help="stop after N tokens")
    parser.add_argument("--temperature", type=float, metavar="T")
    parser.add_argument("--seed", type=int, metavar="N")
    parser.add_argument("--json", action="store_true", help="print events as JSON lines")
    parser.add_argument("--stages", action="store_true", help="print stage changes on stderr")
    parser.add_argument(
        "--first-token-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="give up when no token came for S seconds (60; 0: wait forever)",
    )
    parser.add_argument(
        "--stall-timeout",
        type=float,
        default=15.0,
        metavar="S",
        help="give up when tokens stop for S seconds (15; 0: wait forever)",
    )
    chat_kb.add_arguments(parser)
    chat_cascade.add_arguments(parser)
    images.add_arguments(parser)
    pool_args.add_arguments(parser)
    chat_tools.add_arguments(parser)


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """--url, --api, --api-key-env, --local: shared by chat and models."""
    parser.add_argument("--url", help="server URL (default: a detected local server)")
    parser.add_argument("--api", choices=["auto", "ollama", "openai"], default="auto")
    parser.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding a bearer API key"
    )
    parser.add_argument("--local", action="store_true", help="use the embedded local engine")


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_chat(args))
    except KeyboardInterrupt:  # the stream was already closed by the cancellation
        _say("stopped")
        return EXIT_STOPPED
    except TachyError as error:
        return failure_exit(error)


async def _chat(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    found = await chat_kb.retrieve(args, text) if args.kb else None
    if found is not None:
        chat_kb.report_retrieved(found, args.json)
    if args.pool:
        code = await chat_pool.run(args, text, found)
        if found is not None:
            chat_kb.report_sources(found)
        return code
    if cascade_args.wanted(args):
        code = await chat_cascade.run(args, text, found)
        if found is not None:
            chat_kb.report_sources(found)
        return code
    printer = JsonPrinter(sys.stdout) if args.json else TextPrinter(sys.stdout, args.stages)
    told = printer.model_loading if isinstance(printer, JsonPrinter) else None
    choice = ServerChoice(args, on_loading=told)
    async with choice as backend:
        model = args.model or first_listed(backend, choice.models)
        attached = await images.prepare(args, backend, model)
        if isinstance(printer, JsonPrinter):
            printer.images([images.image_record(a) for a in attached])
        # The tools first: their definitions count in the plan's budget and wait.
        tools = choice.tachy.tools
        offer = await chat_tools.open_offer(args, tools) if chat_tools.wanted(args) else None
        tool_tokens = offer.schema_tokens() if offer is not None else 0
        plan = _plan(choice.use(backend, model), args, text, found, attached, tool_tokens)
        request = plan.request()
        if isinstance(printer, JsonPrinter):  # the wait predicted from earlier answers
            printer.plan(plan)
        limits = timeouts(args, spent_s=choice.waited_s)
        if offer is not None:  # the tool loop: model calls and tool calls
            return await chat_tools.run(args, choice.tachy.tools, backend, request, limits, offer)
        # A 503 "Loading model" to the request itself is the loading state, waited out.
        stream = LoadingRetryStream(
            PlainOpener(backend), request, limits, limits.first_byte_s or LOAD_WAIT_S
        )
        stream.on_loading = lambda on: printer.loading(on, stream)
        try:
            async with stream, stall_watch(printer, stream):
                ticking = args.json or args.stages  # the states before the first byte
                async for event in with_ticks(stream) if ticking else stream:
                    printer.show(event, stream)
        except asyncio.CancelledError:  # Ctrl-C: the text so far stays on screen
            printer.finish(stream)
            raise
        printer.finish(stream)
        # The root's policies hear the answer as the window's: the predictor learns.
        choice.tachy.events.publish(answer_finished(plan, request, stream))
        if args.json and isinstance(stream.outcome, Failed):
            _say(stream.outcome.message)
        if found is not None:
            chat_kb.report_sources(found)
        return exit_code(stream)


class ServerChoice:
    """The backend for --url, else a detected local server, else the local engine.

    The command builds the app's own composition root (client/services/tachy.py, with
    no stored history): its local engine, and its chat session to plan the request."""

    def __init__(
        self, args: argparse.Namespace, on_loading: Callable[[], None] | None = None
    ) -> None:
        self._args = args
        self._on_loading = on_loading  # the server said it is loading its model
        # The settings store only: what earlier answers taught the TTFT predictors.
        self.tachy, self._db = learning_root()
        self._local = False  # the local engine answers
        self._backend: Backend | None = None
        self.models: list[ModelInfo] | None = None  # None: not read
        self.waited_s = 0.0  # for the server to load its model: part of the first token's wait

    async def __aenter__(self) -> Backend:
        args = self._args
        key = api_key(args.api_key_env)
        url, api = args.url, args.api
        if url is None and not args.local:
            found = await discover_local_servers()
            if found:
                url, api = found[0].url, found[0].api
                _say(f"using {found[0].api} server at {found[0].url}")
        if url is None:
            url, api = await self._start_engine(), "openai"
            self._local = True
        try:
            self._backend = await make_backend(url, api, key)
            await self._read_models(self._backend)
        except BaseException:
            await self.__aexit__()
            raise
        return self._backend

    async def _read_models(self, backend: Backend) -> None:
        """The model list, once the server has loaded its model. Without -m it names the
        model; either way an OpenAI-compatible backend learns from it whether this is a
        llama.cpp server, which then reports its prompt progress (`prefill` events)."""
        named = getattr(self._args, "model", None)
        if named and not isinstance(backend, OpenAICompatBackend):
            return
        wait = ModelWait(self._on_loading)
        within = getattr(self._args, "first_token_timeout", LOAD_WAIT_S) or None
        try:
            self.models = await wait.models(backend, within, needed=not named)
        finally:
            self.waited_s = wait.waited_s

    def use(self, backend: Backend, model: str) -> ChatSession:
        """The session the request is planned in, as the window plans a first message."""
        where = Server(backend.base_url, backend.base_url, backend.api, is_local=self._local)
        return self.tachy.use(backend, model, where)

    async def _start_engine(self) -> str:
        engine = self.tachy.local_engine()
        try:
            await engine.start()
        except LocalEngineUnavailable as error:
            raise TachyError(
                f"No local server was found and {error} "
                "Or pass --url URL for a running server, or run `tachy serve-local`."
            ) from error
        _say(f"using the local engine at {engine.url}")
        return engine.url

    async def __aexit__(self, *exc: object) -> None:
        if self._backend is not None:
            await self._backend.aclose()
        try:
            await self.tachy.aclose()  # saves what was learned; stops the local engine
        finally:
            self._db.close()


def _plan(
    session: ChatSession,
    args: argparse.Namespace,
    text: str,
    found: Retrieval | None = None,
    attached: Sequence[Attachment] = (),
    tool_tokens: int = 0,
) -> RequestPlan:
    """The request's plan, made by the session as the app plans a first message (with
    the wait its model's predictor expects)."""
    passages = as_passages(found.passages) if found is not None else []
    session.configure(system_prompt=args.system or None, options=options(args))
    sent = tuple(a.sent for a in attached)
    return session.plan_question([], text, passages=passages, images=sent, tool_tokens=tool_tokens)
