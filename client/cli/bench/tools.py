"""`tachy bench --mcp FILE --allow-tools all`: n turns with tools, each turn's time split
into the model's and the tools' (client/services/bench/tool_turns.py).

    tachy bench --url http://127.0.0.1:8080 --mcp mcp.json --allow-tools all -n 10 \\
        --prompt "What is 2 + 3? Use add."
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from client.backends import make_backend
from client.backends.base import Backend
from client.cli.chat import tools as chat_tools
from client.cli.common.chat_common import EXIT_FAILED, first_listed
from client.cli.common.server_wait import LOAD_WAIT_S, ModelWait
from client.core.stats import Summary
from client.services.bench.tool_turns import ToolBenchReport, run_tool_bench
from client.services.storage.stores import Stores
from client.services.tachy import Tachy
from client.services.tools.loop import ModelCall, ToolLoop

ROWS = {
    "turn_ms": "turn",
    "model_ms": "model",
    "tools_ms": "tools",
    "approval_ms": "approval",
    "first_ttft_ms": "ttft",
    "result_ttft_ms": "result ttft",  # the model's prefill of the tools' results
}


def wanted(args: argparse.Namespace) -> bool:
    return chat_tools.wanted(args)


async def run(args: argparse.Namespace, prompt: str) -> int:
    tachy = Tachy(Stores(), warm_models=False)
    try:
        url, api = args.url, args.api
        if args.local or not url:
            engine = tachy.local_engine()
            await engine.start()
            url, api = engine.url, "openai"
        backend = await make_backend(url, api, args.api_key)
        try:
            report = await _turns(args, tachy, backend, prompt)
        finally:
            await backend.aclose()
    finally:
        await tachy.aclose()
    _write(report, args.json)
    return 0 if any(t.outcome == "answered" for t in report.turns) else EXIT_FAILED


async def _turns(
    args: argparse.Namespace, tachy: Tachy, backend: Backend, prompt: str
) -> ToolBenchReport:
    models = await ModelWait().models(backend, LOAD_WAIT_S, needed=not args.model)
    model = args.model or first_listed(backend, models)
    offer = await chat_tools.open_tools(tachy.tools, chat_tools.read_servers(args.mcp))
    approver = chat_tools.TerminalApprover(args.allow_tools)

    def new_loop(model_call: ModelCall) -> ToolLoop:
        return ToolLoop(model_call, offer, tachy.tools, approver, step_limit=args.tool_steps)

    report = ToolBenchReport(model, prompt)
    return await run_tool_bench(
        report, new_loop, backend.chat, args.n, args.warmup, args.max_tokens
    )


def _write(report: ToolBenchReport, json_target: str | None) -> None:
    table = sys.stderr if json_target == "-" else sys.stdout
    table.write(format_tool_report(report))
    table.flush()
    if json_target is None:
        return
    text = json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


def format_tool_report(report: ToolBenchReport) -> str:
    turns = report.turns
    answered = sum(t.outcome == "answered" for t in turns)
    lines = [
        f"{len(turns)} turns with tools ({answered} answered), model {report.model}",
        f"time in tools: {report.tools_share * 100:.0f} % (the approval apart)",
        "",
        f"{'ms':<14}{'p50':>10}{'p95':>10}{'mean':>10}",
    ]
    for key, summary in report.summaries().items():
        lines.append(f"{ROWS[key]:<14}" + "".join(f"{c:>10}" for c in _cells(summary)))
    return "\n".join(lines) + "\n"


def _cells(summary: Summary | None) -> tuple[str, str, str]:
    if summary is None:
        return "-", "-", "-"
    return f"{summary.median:.1f}", f"{summary.p95:.1f}", f"{summary.mean:.1f}"
