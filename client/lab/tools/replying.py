"""Answer a request that offers tools, in either dialect, at the scenario's pace: the
first line after the TTFT, then one a TPOT apart, the closing at once."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any, Protocol

from aiohttp import web

from client.lab.tools.ollama import NDJSON, OllamaToolWire
from client.lab.tools.openai import SSE, OpenAIToolWire
from client.lab.tools.planning import ToolTurn, plan_turn

CHARS_PER_TOKEN = 4  # for the counts the closing reports


class LabState(Protocol):
    """What the tool model uses of the lab's state (client/lab's LabState), named here so
    this folder imports nothing else of the lab and moves with it unchanged."""

    scenario: Any  # the server-wide Scenario: .server, .recording
    upstream: str | None
    stats: Any  # .requests, .completed

    def scenario_for(self, model: str) -> Any: ...  # .ttft, .tpot_ms, .tool_calls_style
    def rng_for(self, request_seed: int | None) -> random.Random: ...
    def knows(self, model: str) -> bool: ...


def answers(lab: LabState, body: dict[str, Any]) -> bool:
    """The tool model answers a request that offers tools to one of the lab's own models;
    a proxy passes it on to its upstream, and a recording replays what it holds."""
    if not body.get("tools") or lab.upstream is not None:
        return False
    return lab.scenario.recording is None and lab.knows(str(body.get("model") or ""))


async def ollama_tool_reply(
    request: web.Request, lab: LabState, body: dict[str, Any]
) -> web.StreamResponse:
    model = str(body.get("model"))
    scenario = lab.scenario_for(model)
    rng = lab.rng_for(_seed(body.get("options")))
    wire = OllamaToolWire(model, rng, scenario.tool_calls_style == "done_line")
    turn = _turn(body)
    started = asyncio.get_running_loop().time()
    if body.get("stream", True) is False:
        await asyncio.sleep(_ttft_s(lab, model, rng))
        whole = wire.whole(turn, _durations(body, turn, started))
        return _counted(lab, web.json_response(whole))
    response = await _play(request, lab, model, rng, wire.pieces(turn), NDJSON)
    await response.write(wire.closing(turn, _durations(body, turn, started)))
    await response.write_eof()
    return _counted(lab, response)


async def openai_tool_reply(
    request: web.Request, lab: LabState, body: dict[str, Any]
) -> web.StreamResponse:
    model = str(body.get("model"))
    scenario = lab.scenario_for(model)
    rng = lab.rng_for(body.get("seed") if isinstance(body.get("seed"), int) else None)
    options = body.get("stream_options")
    usage = isinstance(options, dict) and bool(options.get("include_usage"))
    llamacpp = lab.scenario.server == "llamacpp"
    interleaved = scenario.tool_calls_style == "interleaved"
    wire = OpenAIToolWire(model, rng, llamacpp, interleaved, usage)
    turn = _turn(body)
    if not body.get("stream", False):
        await asyncio.sleep(_ttft_s(lab, model, rng))
        return _counted(lab, web.json_response(wire.whole(turn, _usage(body, turn))))
    response = await _play(request, lab, model, rng, wire.pieces(turn), SSE)
    await response.write(wire.closing(turn, _usage(body, turn)))
    await response.write_eof()
    return _counted(lab, response)


def _turn(body: dict[str, Any]) -> ToolTurn:
    tools, messages = body.get("tools"), body.get("messages")
    return plan_turn(tools if isinstance(tools, list) else [], messages or [])


async def _play(
    request: web.Request,
    lab: LabState,
    model: str,
    rng: Any,
    pieces: list[bytes],
    content_type: str,
) -> web.StreamResponse:
    lab.stats.requests += 1
    response = web.StreamResponse(headers={"Content-Type": content_type})
    await response.prepare(request)
    await asyncio.sleep(_ttft_s(lab, model, rng))
    tpot_s = lab.scenario_for(model).tpot_ms / 1000.0
    for index, piece in enumerate(pieces):
        if index:
            await asyncio.sleep(tpot_s)
        await response.write(piece)
    return response


def _counted(lab: LabState, response: web.StreamResponse) -> web.StreamResponse:
    lab.stats.completed += 1
    return response


def _ttft_s(lab: LabState, model: str, rng: Any) -> float:
    return lab.scenario_for(model).ttft.sample_ms(rng) / 1000.0


def _seed(options: Any) -> int | None:
    seed = options.get("seed") if isinstance(options, dict) else None
    return seed if isinstance(seed, int) else None


def _tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


def _counts(body: dict[str, Any], turn: ToolTurn) -> tuple[int, int]:
    prompt = _tokens(json.dumps(body.get("messages"))) + _tokens(json.dumps(body.get("tools")))
    produced = turn.answer + "".join(json.dumps(c.arguments) + c.name for c in turn.calls)
    return prompt, _tokens(produced)


def _usage(body: dict[str, Any], turn: ToolTurn) -> dict[str, int]:
    prompt, completion = _counts(body, turn)
    return {"prompt_tokens": prompt, "total_tokens": prompt + completion,
            "completion_tokens": completion}  # fmt: skip


def _durations(body: dict[str, Any], turn: ToolTurn, started: float) -> dict[str, int]:
    prompt, completion = _counts(body, turn)
    total = max(1, round((asyncio.get_running_loop().time() - started) * 1e9))
    return {"total_duration": total, "load_duration": max(1, total // 20),
            "prompt_eval_count": prompt, "prompt_eval_duration": max(1, total // 4),
            "eval_count": completion, "eval_duration": max(1, total // 2)}  # fmt: skip
