"""`tachy chat`: send one message and stream the answer to the terminal.

    tachy chat --url http://127.0.0.1:11434 -m llama3.2 "Why is the sky blue?"

stdout gets exactly the model's text as it arrives (or, with --json, one JSON object
per event and a final metrics object); stderr gets one summary line. Ctrl-C stops the
generation (the connection is closed, so the server stops), keeps what was printed
and exits 130. Exit codes: 0 done, 1 error, 2 unreachable, 3 interrupted, 130 stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import sys
from typing import TextIO

from client.backends import discover_local_servers, make_backend
from client.backends.base import Backend
from client.backends.errors import BackendUnreachable, StreamInterrupted, TachyError
from client.backends.local_engine import LocalEngine, LocalEngineUnavailable
from client.backends.openai_compat import OpenAICompatBackend
from client.backends.stream import ChatStream, StreamTimeouts
from client.cli import chat_kb
from client.core.conversation import ChatRequest, GenerationOptions
from client.core.events import Failed, Prefill, Started, StreamEvent, Token, TokenKind, as_dict
from client.core.metrics import RequestMetrics
from client.core.timeline import now_ns
from client.services.planner import PlanInput, PlanSettings, Route, plan_request
from client.services.retrieval import Retrieval, as_passages

EXIT_FAILED = 1
EXIT_UNREACHABLE = 2
EXIT_INTERRUPTED = 3
EXIT_STOPPED = 130


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
    except BackendUnreachable as error:
        _say(str(error))
        return EXIT_UNREACHABLE
    except TachyError as error:
        _say(str(error))
        return EXIT_FAILED


async def _chat(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    found = await chat_kb.retrieve(args, text) if args.kb else None
    if found is not None:
        chat_kb.report_retrieved(found, args.json)
    async with ServerChoice(args) as backend:
        model = args.model or await first_model(backend)
        stream = backend.chat(_request(args, backend, model, text, found), _timeouts(args))
        printer = JsonPrinter(sys.stdout) if args.json else TextPrinter(sys.stdout, args.stages)
        try:
            async with stream:
                async for event in stream:
                    printer.show(event, stream)
        except asyncio.CancelledError:  # Ctrl-C: the text so far stays on screen
            printer.finish(stream)
            raise
        printer.finish(stream)
        if args.json and isinstance(stream.outcome, Failed):
            _say(stream.outcome.message)
        if found is not None:
            chat_kb.report_sources(found)
        return _exit_code(stream)


class ServerChoice:
    """The backend for --url, else a detected local server, else the local engine."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._engine: LocalEngine | None = None
        self._backend: Backend | None = None

    async def __aenter__(self) -> Backend:
        args = self._args
        api_key = _api_key(args.api_key_env)
        url, api = args.url, args.api
        if url is None and not args.local:
            found = await discover_local_servers()
            if found:
                url, api = found[0].url, found[0].api
                _say(f"using {found[0].api} server at {found[0].url}")
        if url is None:
            url, api = await self._start_engine(), "openai"
        self._backend = await make_backend(url, api, api_key)
        if isinstance(self._backend, OpenAICompatBackend) and args.model:
            # Without -m the model list is read anyway. Either way the backend learns
            # from it whether this is a llama.cpp server, which then reports its prompt
            # progress (`prefill` events) on the one request this command sends.
            with contextlib.suppress(TachyError):
                await self._backend.list_models()
        return self._backend

    async def _start_engine(self) -> str:
        engine = LocalEngine()
        try:
            await engine.start()
        except LocalEngineUnavailable as error:
            raise TachyError(
                f"No local server was found and {error} "
                "Or pass --url URL for a running server, or run `tachy serve-local`."
            ) from error
        self._engine = engine
        _say(f"using the local engine at {engine.url}")
        return engine.url

    async def __aexit__(self, *exc: object) -> None:
        if self._backend is not None:
            await self._backend.aclose()
        if self._engine is not None:
            await self._engine.stop()


async def first_model(backend: Backend) -> str:
    models = await backend.list_models()
    if not models:
        raise TachyError(f"The server at {backend.base_url} lists no models. Pass one with -m.")
    return models[0].name


def _api_key(variable: str | None) -> str | None:
    if not variable:
        return None
    key = os.environ.get(variable)
    if not key:
        raise TachyError(f"The environment variable {variable} is not set or empty.")
    return key


def _request(
    args: argparse.Namespace,
    backend: Backend,
    model: str,
    text: str,
    found: Retrieval | None = None,
) -> ChatRequest:
    """The request, planned as the app plans a first message (client.services.planner)."""
    passages = as_passages(found.passages) if found is not None else []
    options = GenerationOptions(
        temperature=args.temperature, seed=args.seed, max_tokens=args.max_tokens
    )
    settings = PlanSettings(system_prompt=args.system or None, options=options)
    given = PlanInput([], text, settings, [Route(backend, model)], passages=passages)
    return plan_request(given).request()


def _timeouts(args: argparse.Namespace) -> StreamTimeouts:
    return StreamTimeouts(
        first_byte_s=args.first_token_timeout or None, stall_s=args.stall_timeout or None
    )


def _exit_code(stream: ChatStream) -> int:
    outcome = stream.outcome
    if not isinstance(outcome, Failed):
        return 0
    if isinstance(outcome.error, BackendUnreachable):
        return EXIT_UNREACHABLE
    if isinstance(outcome.error, StreamInterrupted):
        return EXIT_INTERRUPTED
    return EXIT_FAILED


class TextPrinter:
    """The answer on stdout as it arrives; stages, errors and the summary on stderr."""

    def __init__(self, out: TextIO, stages: bool) -> None:
        self._out = out
        self._stages = stages
        self._stage = ""
        self._wrote_text = False

    def show(self, event: StreamEvent, stream: ChatStream) -> None:
        if isinstance(event, Started):
            self._enter("understanding", stream, at_ns=event.at_ns)
        elif isinstance(event, Token):
            self._enter("thinking" if event.kind is TokenKind.THINKING else "answering", stream)
            if event.kind is TokenKind.ANSWER:
                self._out.write(event.text)
                self._out.flush()
                self._wrote_text = True
        elif isinstance(event, Prefill):
            if self._stages:
                _say(f"[{_since_written_ms(stream):7.1f} ms] {prefill_line(event)}")
        elif isinstance(event, Failed):
            self._end_line()
            _say(event.message)

    def finish(self, stream: ChatStream) -> None:
        self._end_line()
        stream.timeline.close_stages()
        _say(summary_line(stream.metrics()))

    def _enter(self, stage: str, stream: ChatStream, at_ns: int | None = None) -> None:
        if stage == self._stage:
            return
        self._stage = stage
        at_ns = at_ns if at_ns is not None else now_ns()
        stream.timeline.enter_stage(stage, at_ns)
        if self._stages:
            start = stream.timeline.request_written_ns or at_ns
            _say(f"[{(at_ns - start) / 1e6:7.1f} ms] {stage}")

    def _end_line(self) -> None:
        # A terminal prompt should not start mid-line; a pipe gets exactly the text.
        if self._wrote_text and self._out.isatty():
            self._out.write("\n")
            self._out.flush()
        self._wrote_text = False


class JsonPrinter:
    def __init__(self, out: TextIO) -> None:
        self._out = out

    def show(self, event: StreamEvent, stream: ChatStream) -> None:
        self._out.write(json.dumps(as_dict(event), ensure_ascii=False) + "\n")
        self._out.flush()

    def finish(self, stream: ChatStream) -> None:
        record = {"event": "metrics", **stream.metrics().as_dict()}
        self._out.write(json.dumps(record) + "\n")
        self._out.flush()


def _since_written_ms(stream: ChatStream) -> float:
    start = stream.timeline.request_written_ns
    return (now_ns() - start) / 1e6 if start is not None else 0.0


def prefill_line(progress: Prefill) -> str:
    """`prefill 42 % (630 / 1,493 tokens, 0 cached), about 3 s left` for --stages."""
    line = (
        f"prefill {math.floor(progress.fraction * 100)} % "
        f"({progress.computed:,} / {progress.to_compute:,} tokens, {progress.cached:,} cached)"
    )
    left = progress.seconds_left()
    return line if left is None or progress.fraction >= 1.0 else f"{line}, about {left:.1f} s left"


def summary_line(metrics: RequestMetrics) -> str:
    count = metrics.output_tokens
    tokens = "-" if count is None else str(count)
    if count is not None and metrics.output_tokens_estimated:
        tokens += " (estimated)"
    parts = [
        f"ttft {_ms(metrics.ttft_ms)}",
        f"tpot {_ms(metrics.tpot_ms)}",
        f"{_number(metrics.tokens_per_s)} tokens/s",
        f"e2el {_ms(metrics.e2el_ms)}",
        f"{tokens} output tokens",
    ]
    if metrics.tier:
        parts.append(f"tier {metrics.tier}")
    return " | ".join(parts)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
