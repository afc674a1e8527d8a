"""What `tachy chat` and its cascade (client/cli/chat/cascade.py) share: options and
timeouts from the arguments, the answer on stdout (or JSON lines), the rest on
stderr, and the exit code; and the model a command takes when none is given (bench too)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import sys
from collections.abc import AsyncIterator, Sequence
from typing import TextIO

from client.backends.base import Backend, ModelInfo
from client.backends.errors import BackendUnreachable, StreamInterrupted, TachyError
from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatRequest, GenerationOptions
from client.core.events import (
    Done,
    DoneReason,
    Failed,
    Prefill,
    Started,
    StreamEvent,
    Token,
    TokenKind,
    as_dict,
)
from client.core.metrics import RequestMetrics
from client.core.timeline import now_ns
from client.services.cascade.fallback import FallbackStream
from client.services.chat.stream_opener import LoadingRetryStream
from client.services.chat.turn_state import STATE_WORDS, StreamStates, TurnState
from client.services.events import AnswerFinished
from client.services.fleet.fleet_stream import FleetStream
from client.services.planning.planner import RequestPlan
from client.services.storage.stores import Stores
from client.services.tachy import Tachy
from client.store.db import Database
from client.store.recovery import open_history
from client.store.settings import Settings

EXIT_FAILED = 1
EXIT_UNREACHABLE = 2
EXIT_INTERRUPTED = 3
EXIT_STOPPED = 130
# A lone model's stream, a cascade's (the other model takes over before a first token),
# a pool's (client/services/fleet), or one waiting out a model still loading.
AnswerStream = ChatStream | FallbackStream | FleetStream | LoadingRetryStream
TICK_S = 0.1  # --json, before the first byte: how often the request's stamps are read
STALL_TICK_S = 0.5  # after it: how often a silence is checked for the stalled state


async def first_model(backend: Backend) -> str:
    """The model a command uses when none is given: the first the server lists."""
    return first_listed(backend, await backend.list_models())


def first_listed(backend: Backend, models: Sequence[ModelInfo] | None) -> str:
    """The first of the models a server listed; none: say to pass one."""
    if not models:
        raise TachyError(f"The server at {backend.base_url} lists no models. Pass one with -m.")
    return models[0].name


def options(args: argparse.Namespace) -> GenerationOptions:
    return GenerationOptions(
        temperature=args.temperature, seed=args.seed, max_tokens=args.max_tokens
    )


def timeouts(args: argparse.Namespace, spent_s: float = 0.0) -> StreamTimeouts:
    """The stream's limits; spent_s of the first token's wait went already (waiting for
    the server to load its model)."""
    first = args.first_token_timeout or None
    if first is not None:
        first = max(first - spent_s, 0.001)
    return StreamTimeouts(first_byte_s=first, stall_s=args.stall_timeout or None)


def api_key(variable: str | None) -> str | None:
    if not variable:
        return None
    key = os.environ.get(variable)
    if not key:
        raise TachyError(f"The environment variable {variable} is not set or empty.")
    return key


def exit_code(stream: AnswerStream) -> int:
    outcome = stream.outcome
    if not isinstance(outcome, Failed):
        return 0
    if isinstance(outcome.error, BackendUnreachable):
        return EXIT_UNREACHABLE
    if isinstance(outcome.error, StreamInterrupted):
        return EXIT_INTERRUPTED
    return EXIT_FAILED


def failure_exit(error: TachyError, prefix: str = "") -> int:
    """Say why a command failed (on stderr) and return its exit code."""
    say(f"{prefix}{error}")
    return EXIT_UNREACHABLE if isinstance(error, BackendUnreachable) else EXIT_FAILED


class TextPrinter:
    """The answer on stdout as it arrives; errors and the summary on stderr, and with
    --stages each change of the turn's state, in the window's words ("[ 12.0 ms]
    Waiting for the server"; client/services/chat/turn_state.py)."""

    def __init__(self, out: TextIO, stages: bool) -> None:
        self._out = out
        self._stages = stages
        self._stage = ""
        self._wrote_text = False
        self._states: StreamStates | None = None

    def show(self, event: StreamEvent | None, stream: AnswerStream) -> None:
        """`event`; None: time passed without one (the request's stamps may say more)."""
        if self._stages:
            self._say_state(event, stream)
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
                say(f"[{_since_written_ms(stream):7.1f} ms] {prefill_line(event)}")
        elif isinstance(event, Failed):
            self._end_line()
            say(event.message)

    def finish(self, stream: AnswerStream) -> None:
        self._end_line()
        if self._stages and stream.outcome is not None:  # e.g. stopped by Ctrl-C
            self._say_state(stream.outcome, stream)
        stream.timeline.close_stages()
        say(summary_line(stream.metrics()))

    def loading(self, on: bool, stream: AnswerStream) -> None:
        """The server answered 503 "Loading model" (on) or took the request (off)."""
        if self._states is None:
            self._states = StreamStates(stream.timeline)
        state = self._states.loading(on)
        if state is TurnState.LOADING:
            self._end_line()
            say(
                f"[{_since_written_ms(stream):7.1f} ms] {STATE_WORDS[state]}"
                if self._stages
                else loading_line()
            )
        elif state is not None and self._stages:
            say(f"[{_since_written_ms(stream):7.1f} ms] {STATE_WORDS[state]}")

    def _say_state(self, event: object | None, stream: AnswerStream) -> None:
        if self._states is None:
            self._states = StreamStates(stream.timeline)
        state = self._states.after(event)
        if state is not None:
            self._end_line()
            say(f"[{_since_written_ms(stream):7.1f} ms] {STATE_WORDS[state]}")

    def _enter(self, stage: str, stream: AnswerStream, at_ns: int | None = None) -> None:
        if stage == self._stage:
            return
        self._stage = stage
        stream.timeline.enter_stage(stage, at_ns if at_ns is not None else now_ns())

    def _end_line(self) -> None:
        # A terminal prompt should not start mid-line; a pipe or a file gets exactly the
        # text, and the next line on stderr (the figures, a state) starts a line of its
        # own there, so `tachy chat … | cat` shows the figures under the answer.
        if self._wrote_text and self._out.isatty():
            self._out.write("\n")
            self._out.flush()
        elif self._wrote_text:
            sys.stderr.write("\n")
        self._wrote_text = False


class JsonPrinter:
    """One JSON object a line: each stream event, and before it each change of the
    turn's state ({"event": "state", "state": "waiting"}: the window's states)."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._states: StreamStates | None = None

    def show(self, event: StreamEvent | None, stream: AnswerStream) -> None:
        """`event`, after the state it leads to; None: time passed without one."""
        self._state(event, stream)
        if event is not None:
            self._write(as_dict(event))

    def plan(self, plan: RequestPlan) -> None:
        """Before the request: where it goes and the wait predicted from earlier
        answers to that server and model (null: none measured yet)."""
        route = plan.route
        self._write(
            {
                "event": "plan",
                "model": route.model,
                "prompt_tokens": plan.prompt_tokens,
                "predicted_ttft_ms": plan.predicted_ttft_ms,
            }
        )

    def finish(self, stream: AnswerStream) -> None:
        if stream.outcome is not None:  # e.g. stopped by Ctrl-C: no event said so
            self._state(stream.outcome, stream)
        self._write({"event": "metrics", **stream.metrics().as_dict()})

    def images(self, records: Sequence[dict[str, object]]) -> None:
        """The images sent with the question (client/cli/common/images.py image_record)."""
        for record in records:
            self._write(record)

    def model_loading(self) -> None:
        """Before the request: the server said it is loading its model (the loading
        state; stderr says its words)."""
        self._write({"event": "state", "state": TurnState.LOADING.value})

    def loading(self, on: bool, stream: AnswerStream) -> None:
        """The server answered 503 "Loading model" (on) or took the request (off)."""
        if self._states is None:
            self._states = StreamStates(stream.timeline)
        state = self._states.loading(on)
        if state is not None:
            self._write({"event": "state", "state": state.value})
        if state is TurnState.LOADING:
            say(loading_line())

    def _state(self, event: object | None, stream: AnswerStream) -> None:
        if self._states is None:
            self._states = StreamStates(stream.timeline)
        state = self._states.after(event)
        if state is not None:
            self._write({"event": "state", "state": state.value})

    def _write(self, record: dict[str, object]) -> None:
        self._out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._out.flush()


async def with_ticks(
    stream: AnswerStream, every_s: float = TICK_S
) -> AsyncIterator[StreamEvent | None]:
    """The stream's events, and None every `every_s` while no byte came back (the
    request's stamps change the state without an event). After the first byte, the
    events as they come, with no timer."""
    events = aiter(stream)
    pending: asyncio.Future[StreamEvent | None] | None = None
    try:
        while True:
            if pending is None and stream.timeline.first_byte_ns is not None:
                event = await anext(events, None)
            else:
                if pending is None:
                    pending = asyncio.ensure_future(anext(events, None))
                done, _ = await asyncio.wait({pending}, timeout=every_s)
                if not done:
                    yield None
                    continue
                event, pending = pending.result(), None
            if event is None:
                return
            yield event
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            await asyncio.wait({pending})


@contextlib.asynccontextmanager
async def stall_watch(
    printer: TextPrinter | JsonPrinter, stream: AnswerStream
) -> AsyncIterator[None]:
    """While the answer streams, its state is read every STALL_TICK_S without an event
    too: tokens that stop are the stalled state, as in the window. (A task of its own:
    the stream itself is read in the caller's task, where its connection was opened.)"""

    async def watch() -> None:
        while True:
            await asyncio.sleep(STALL_TICK_S)
            if stream.timeline.first_byte_ns is not None:
                printer.show(None, stream)

    task = asyncio.ensure_future(watch())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.wait({task})


def _since_written_ms(stream: AnswerStream) -> float:
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


def loading_line() -> str:
    """What stderr says when the server is loading its model: the loading state's words."""
    return f"{STATE_WORDS[TurnState.LOADING]}…"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def answer_finished(
    plan: RequestPlan, request: ChatRequest, stream: AnswerStream
) -> AnswerFinished:
    """The root's event for an answer the command streamed itself (the TTFT predictor
    of its server and model learns from it, as from the window's)."""
    timeline, outcome = stream.timeline, stream.outcome
    if isinstance(outcome, Done):
        ended = "stopped" if outcome.reason is DoneReason.CANCELLED else "complete"
    else:
        ended = "failed"
    return AnswerFinished(
        metrics=stream.metrics(),
        route=plan.route,
        outcome=ended,
        plan=plan,
        request=request,
        predicted_ttft_ms=plan.predicted_ttft_ms,
        server_answered=timeline.headers_ns is not None or timeline.first_byte_ns is not None,
    )


def learning_root() -> tuple[Tachy, Database]:
    """The app's root for a command: no stored history, but the settings store, where
    the TTFT predictors keep what they learn from every answer (close the database
    after the root)."""
    db = open_history(check=False).db
    return Tachy(Stores(settings=Settings(db)), warm_models=False), db
