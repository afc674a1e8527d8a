"""Answer one generation request in either protocol, with the scenario's timing and faults.

The flow: pick the request's fault (seeded) -> faults that happen before any stream ->
load the model if it is cold -> pieces from the plan (or the upstream) at their
deadlines -> mid-stream faults at their token count -> the closing chunk.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

from client.lab.dialects.wire import WireFormat, token_ids
from client.lab.replies.player import Player, reset_connection
from client.lab.replies.replay import replay
from client.lab.running.state import ARRIVAL, LabState, canonical
from client.lab.scenarios.scenario import BEFORE_STREAM, Fault, Scenario, Step
from client.lab.timing.plan import Piece, Reply, make_plan
from client.lab.timing.sources import (
    SimulatedSource,
    Source,
    UpstreamError,
    UpstreamSource,
    UpstreamStreamError,
)

CONVERSATION_HEADER = "X-Conversation-Id"  # sequences count per conversation with it
QUEUE_FULL = "server busy, please try again.  maximum pending requests exceeded"
DEFAULT_ERROR = "an error was encountered while running the model"
HTML_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


@dataclass(frozen=True, slots=True)
class Ask:
    """A generation request, already read from either protocol."""

    model: str
    prompt: tuple[str, ...]  # the prompt's tokens, chat template included
    stream: bool
    want_thinking: bool
    max_tokens: int | None
    keep_alive_s: float
    seed: int | None
    openai_body: dict[str, Any]  # what the proxy sends upstream
    return_progress: bool = False  # llama.cpp: prompt_progress chunks while prefilling
    conversation: str | None = None  # sequences count per conversation when it is set
    encode_s: float = 0.0  # a vision model's time to encode the request's images
    # The partial answer the request ends with, when the server continues it (Ollama
    # and llama-server a trailing assistant message, vLLM with continue_final_message):
    # the reply goes on from its last words.
    continues: str = ""

    @property
    def prompt_tokens(self) -> int:
        return len(self.prompt)


async def answer(
    request: web.Request, lab: LabState, ask: Ask, fmt: WireFormat
) -> web.StreamResponse:
    loop = asyncio.get_running_loop()
    if lab.scenario.recording is not None:  # a recorded session, byte for byte
        replayed = await replay(request, lab, lab.scenario.recording, ask.conversation, fmt)
        if replayed is not None:
            return replayed
    scenario = lab.scenario_for(ask.model)
    rng = lab.rng_for(ask.seed)
    step = lab.next_step(scenario, ask.model, ask.conversation)
    if step is None:
        fault = scenario.pick_fault(rng)
    else:
        scenario, fault = with_step(scenario, step), step.fault
    scenario, fault = lab.live.over(scenario, fault)
    lab.stats.requests += 1
    if fault is not None:
        lab.stats.faults[fault.kind] += 1
        early = await _before_stream(lab, fault, fmt, ask)
        if early is not None:
            return early
    if not lab.knows(ask.model) and not fmt.any_model:
        served = tuple(s.model for s in lab.scenario.served())
        return fmt.error_response(404, not_found(ask.model, fmt, served))
    # From the moment the request arrived (before its JSON was parsed), or after a
    # slow_first_byte delay: the reply starts from there.
    delayed = fault is not None and fault.kind == "slow_first_byte"
    stamped = ARRIVAL.get()
    arrival = loop.time() if delayed or stamped is None else stamped
    name = canonical(ask.model)
    reply = Reply(ask.model, ask.prompt_tokens, arrival, fault=fault)
    reply.prompt_ids = tuple(token_ids(list(ask.prompt)))
    admitted = loaded = False
    lab.metrics.tokens_in_flight += ask.prompt_tokens
    source: Source | None = None
    try:
        await lab.scheduler.acquire()
        admitted = True
        start = loop.time()
        reply.queue_s = start - arrival
        wait = lab.models.acquire(name, start, scenario.load_ms / 1000.0, ask.keep_alive_s)
        loaded = True
        reply.load_s = wait
        reply.loaded_at = start + wait
        if scenario.server == "llamacpp":
            reply.cache_tokens = lab.cached_prefix(ask.prompt)
        prefill_s = _prefill_s(scenario, reply) + ask.encode_s
        if lab.upstream is None:
            plan = make_plan(scenario, rng, ask.want_thinking, ask.max_tokens, ask.continues)
            ttft_s = plan.ttft_s + prefill_s
            source = SimulatedSource(plan, reply.loaded_at + ttft_s)
            if not scenario.chunked_prefill:
                lab.pause_decoding(ttft_s)
        else:
            await asyncio.sleep(wait + prefill_s + scenario.ttft.sample_ms(rng) / 1000.0)
            upstream = UpstreamSource(_session(lab), lab.upstream, ask.openai_body)
            try:
                await upstream.open()
            except UpstreamError as exc:
                return fmt.error_response(exc.status, exc.message)
            source = upstream
        if ask.stream:
            response = await _stream(request, reply, source, fmt, lab, ask.return_progress)
        else:
            response = await _whole(request, reply, source, fmt)
        lab.stats.completed += 1
        return response
    except (asyncio.CancelledError, ConnectionError):
        lab.stats.disconnected += 1  # the client left; closing the source stops the upstream
        raise
    finally:
        if source is not None:
            await source.aclose()
        end = loop.time()
        if loaded:
            lab.models.release(name, end, ask.keep_alive_s)
        if admitted:
            lab.scheduler.release()
        lab.metrics.tokens_in_flight -= ask.prompt_tokens
        _observe(lab, reply, end, rng)


def with_step(scenario: Scenario, step: Step) -> Scenario:
    """The scenario with the step's own TTFT and TPOT, when it sets them."""
    changes: dict[str, Any] = {}
    if step.ttft is not None:
        changes["ttft"] = step.ttft
    if step.tpot_ms is not None:
        changes["tpot_ms"] = step.tpot_ms
    return replace(scenario, **changes) if changes else scenario


def _prefill_s(scenario: Scenario, reply: Reply) -> float:
    """Extra time to read the uncached prompt, at the scenario's prefill rate."""
    if scenario.prefill_tokens_per_s <= 0:
        return 0.0
    return (reply.prompt_tokens - reply.cache_tokens) / scenario.prefill_tokens_per_s


def progress_events(
    fmt: WireFormat, reply: Reply, first_at: float, n_batch: int
) -> tuple[tuple[float, bytes], ...]:
    """llama.cpp's prompt_progress: one event per n_batch tokens, the last before the
    first token, spread evenly over the prefill (which starts once the model is loaded).
    """
    assert reply.loaded_at is not None
    total, cache = reply.prompt_tokens, reply.cache_tokens
    todo = max(0, total - cache)
    batches = max(1, -(-todo // n_batch))
    span = max(0.0, first_at - reply.loaded_at)
    events = []
    for k in range(1, batches + 1):
        processed = cache + min(todo, k * n_batch)
        offset = span * k / batches
        at = reply.loaded_at + offset - (0.0005 if k == batches else 0.0)
        events.append((at, fmt.progress(total, cache, processed, round(offset * 1000))))
    return tuple(events)


def not_found(model: str, fmt: WireFormat, served: tuple[str, ...] = ()) -> str:
    if fmt.content_type.startswith("application/x-ndjson"):
        return f"model '{model}' not found"  # server/routes.go, chat/generate/embed/show
    aliases = f" Valid aliases: {', '.join(served)}." if served else ""  # vLLM 0.32 names them
    return f"The model `{model}` does not exist.{aliases}"


async def _before_stream(
    lab: LabState, fault: Fault, fmt: WireFormat, ask: Ask
) -> web.StreamResponse | None:
    if fault.kind == "http_error":
        return fmt.error_response(fault.status, fault.message or _reason(fault.status))
    if fault.kind == "queue_full":
        return fmt.error_response(503, fault.message or QUEUE_FULL)
    if fault.kind == "unknown_model":
        return fmt.error_response(404, not_found(ask.model, fmt))
    if fault.kind == "html_error":
        return web.Response(status=502, text=HTML_502, content_type="text/html")
    if fault.kind == "slow_first_byte":
        await asyncio.sleep(fault.seconds)  # nothing at all, not even headers
    elif fault.kind == "never_answer":
        lab.stats.held += 1
        try:
            await asyncio.Event().wait()  # ends when the client leaves (handler cancelled)
        finally:
            lab.stats.held -= 1
    return None


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return "error"


async def _stream(
    request: web.Request,
    reply: Reply,
    source: Source,
    fmt: WireFormat,
    lab: LabState,
    return_progress: bool = False,
) -> web.StreamResponse:
    loop = asyncio.get_running_loop()
    response = web.StreamResponse(headers={"Content-Type": fmt.content_type})
    await response.prepare(request)
    if opening := fmt.opening():
        await response.write(opening)
    fault = _mid_stream(reply.fault)
    if isinstance(source, SimulatedSource) and request.transport is not None:
        preludes: tuple[tuple[float, bytes], ...] = ()
        if return_progress:
            preludes = progress_events(fmt, reply, source.first_at, lab.scenario.n_batch)
        return await _play(request, response, reply, source, fmt, fault, lab, preludes)
    sent = 0
    try:
        async for piece in source.pieces():
            if fault is not None and fault.kind != "utf8_cut" and sent >= fault.after_tokens:
                if await _inject(request, response, fault, source, fmt):
                    return response
                fault = None
            if chunk := fmt.piece(piece):  # empty: a token counted, not sent
                await response.write(chunk)
            reply.record(piece, loop.time())
            sent += piece.tokens
    except UpstreamStreamError as exc:
        await response.write(fmt.error_event(str(exc)))
        await response.write_eof()
        return response
    reply.finish_reason = source.finish_reason
    if source.completion_tokens:
        reply.output_tokens = source.completion_tokens
    if fault is not None and fault.kind == "utf8_cut":
        await response.write(_cut_inside_character(fmt))
        await response.write_eof()
        return response
    if fault is not None and await _inject(request, response, fault, source, fmt):
        return response
    await response.write(fmt.closing(reply, loop.time()))
    await response.write_eof()
    return response


async def _play(
    request: web.Request,
    response: web.StreamResponse,
    reply: Reply,
    source: SimulatedSource,
    fmt: WireFormat,
    fault: Fault | None,
    lab: LabState,
    preludes: tuple[tuple[float, bytes], ...] = (),
) -> web.StreamResponse:
    """The scripted stream, chunk by chunk from timer callbacks (see lab/replies/player.py)."""
    assert request.transport is not None
    chunked = "chunked" in response.headers.get("Transfer-Encoding", "")  # set by prepare()
    player = Player(request.transport, chunked, source, fmt, reply, fault, preludes)
    player.start()
    lab.decoding.add(player)
    try:
        outcome = await player.finished
    finally:
        lab.decoding.discard(player)
        player.cancel()
    if outcome == "reset":
        await reset_connection(request)
        return response
    if outcome == "done":
        reply.finish_reason = source.finish_reason
        await response.write(fmt.closing(reply, asyncio.get_running_loop().time()))
    await response.write_eof()
    return response


def _mid_stream(fault: Fault | None) -> Fault | None:
    return None if fault is None or fault.kind in BEFORE_STREAM else fault


async def _inject(
    request: web.Request,
    response: web.StreamResponse,
    fault: Fault,
    source: Source,
    fmt: WireFormat,
) -> bool:
    """Do the fault; True when the stream ends here."""
    if fault.kind == "error_mid_stream":
        await response.write(fmt.error_event(fault.message or DEFAULT_ERROR))
        await response.write_eof()
        return True
    if fault.kind == "reset":
        await reset_connection(request)
        return True
    if fault.kind == "stall":
        await asyncio.sleep(fault.seconds)
        source.shift(fault.seconds)
    elif fault.kind == "malformed_json":
        await response.write(fmt.malformed())
    elif fault.kind == "oversize_line":
        await response.write(fmt.piece(Piece("answer", "x" * fault.size_bytes, 1)))
    return False


def _cut_inside_character(fmt: WireFormat) -> bytes:
    """A chunk whose text ends with '終', cut after the character's first byte."""
    line = fmt.piece(Piece("answer", "終", 1))
    return line[: line.index("終".encode()) + 1]


async def _whole(
    request: web.Request, reply: Reply, source: Source, fmt: WireFormat
) -> web.StreamResponse:
    """stream: false. The same timing; mid-stream faults show in the single body."""
    loop = asyncio.get_running_loop()
    fault = _mid_stream(reply.fault)
    sent = 0
    try:
        async for piece in source.pieces():
            if fault is not None and fault.kind in ("stall", "reset", "error_mid_stream"):
                if sent >= fault.after_tokens:
                    if fault.kind == "stall":
                        await asyncio.sleep(fault.seconds)
                        source.shift(fault.seconds)
                    elif fault.kind == "reset":
                        await reset_connection(request)
                        return web.Response()
                    else:
                        return fmt.error_response(500, fault.message or DEFAULT_ERROR)
                    fault = None
            reply.record(piece, loop.time())
            sent += piece.tokens
    except UpstreamStreamError as exc:
        return fmt.error_response(502, str(exc))
    reply.finish_reason = source.finish_reason
    if source.completion_tokens:
        reply.output_tokens = source.completion_tokens
    if fault is not None and fault.kind == "oversize_line":
        reply.text.append("x" * fault.size_bytes)
    body = _dumps_for(fmt, fmt.whole(reply, loop.time())).encode()
    if fault is not None and fault.kind == "malformed_json":
        body = body[: len(body) // 2]
    elif fault is not None and fault.kind == "utf8_cut":
        body = _cut_inside_character(fmt)
    return web.Response(body=body, headers={"Content-Type": fmt.json_type})


def _dumps_for(fmt: WireFormat, obj: dict[str, Any]) -> str:
    from client.lab.dialects.wire import dumps, go_dumps

    return go_dumps(obj) if fmt.content_type.startswith("application/x-ndjson") else dumps(obj)


def _session(lab: LabState) -> Any:
    assert lab.session is not None, "the proxy's client session starts with the server"
    return lab.session


def _observe(lab: LabState, reply: Reply, end: float, rng: Any) -> None:
    metrics = lab.metrics
    if reply.first_token_at is None:
        return
    metrics.ttft.observe(reply.first_token_at - reply.arrival)
    metrics.e2e.observe(end - reply.arrival)
    metrics.queue.observe(reply.queue_s)
    for gap in reply.gaps:
        metrics.itl.observe(gap)
    loaded = reply.loaded_at if reply.loaded_at is not None else reply.arrival
    metrics.prompt_tokens_total += reply.prompt_tokens - reply.cache_tokens
    metrics.cached_tokens_total += reply.cache_tokens
    metrics.prompt_seconds_total += max(0.0, reply.first_token_at - loaded)
    metrics.predicted_tokens_total += reply.output_tokens
    if reply.last_token_at is not None:
        metrics.predicted_seconds_total += reply.last_token_at - reply.first_token_at
    metrics.decode_total += reply.chunks
    metrics.busy_slots_sum += reply.chunks * max(1, lab.scheduler.running)
    metrics.tokens_max = max(metrics.tokens_max, reply.prompt_tokens + reply.output_tokens)
    metrics.speculate(reply.output_tokens, lab.scenario.spec_acceptance, rng)
