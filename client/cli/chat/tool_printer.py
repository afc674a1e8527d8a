"""What `tachy chat --mcp` prints of a turn with tools: each model call as `tachy chat`
prints one (chat_common's printers, one per call: the answer on stdout, its summary on
stderr), and each tool call and result between them.

--json adds these lines to the stream's own:
    {"event": "tool_call", "id", "name", "arguments", "server"}
    {"event": "state", "state": "waiting_for_approval", "tool"}
    {"event": "state", "state": "using_tool", "tool"}
    {"event": "tool_progress", "id", "name", "progress", "total", "message"}
    {"event": "tool_result", "id", "name", "ms", "is_error", "content"}
    {"event": "tools", "outcome", "model_calls", "tool_calls", "model_ms", "tools_ms", ...}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from client.cli.common.chat_common import (
    EXIT_FAILED,
    EXIT_STOPPED,
    JsonPrinter,
    TextPrinter,
    exit_code,
)
from client.cli.common.chat_common import say as _say
from client.services.chat.stream_opener import LoadingRetryStream
from client.services.tools import loop_events as ev
from client.services.tools.loop import LoopItem, ToolLoop

OUTCOME_NAMES = {
    ev.Answered: "answered",
    ev.StepLimitReached: "step_limit",
    ev.ModelFailed: "failed",
    ev.ModelStopped: "stopped",
}
SHOWN_RESULT_CHARS = 200  # of a result, in the text mode's line


class Calls(Protocol):
    on_loading: Callable[[bool, LoadingRetryStream], None] | None

    @property
    def current(self) -> LoadingRetryStream | None: ...


class ToolTurnPrinter:
    def __init__(self, calls: Calls, json_lines: bool, stages: bool) -> None:
        self._calls = calls
        self._json = json_lines
        self._stages = stages
        self._printer: JsonPrinter | TextPrinter | None = None
        self._out: TextIO = sys.stdout
        calls.on_loading = self._loading

    def _loading(self, on: bool, stream: LoadingRetryStream) -> None:
        if self._printer is not None:
            self._printer.loading(on, stream)

    def show(self, item: LoopItem) -> None:
        stream = self._calls.current
        if isinstance(item, ev.ModelCallStarting):
            self._printer = self._new_printer()
        elif isinstance(item, ev.ModelCallEnded):
            if self._printer is not None and stream is not None:
                self._printer.finish(stream)
            self._printer = None
        elif isinstance(item, ev.LoopEvent):
            self._tool_event(item)
        elif self._printer is not None and stream is not None:
            self._printer.show(item, stream)

    def _new_printer(self) -> JsonPrinter | TextPrinter:
        return JsonPrinter(self._out) if self._json else TextPrinter(self._out, self._stages)

    def stopped(self, loop: ToolLoop) -> None:
        stream = self._calls.current
        if self._printer is not None and stream is not None:
            self._printer.finish(stream)
        self._ended("stopped", loop)

    def ended(self, loop: ToolLoop) -> int:
        outcome = loop.outcome
        self._ended(OUTCOME_NAMES.get(type(outcome), "stopped"), loop)
        if isinstance(outcome, ev.StepLimitReached):
            _say(outcome.sentence)
            return EXIT_FAILED
        if isinstance(outcome, ev.ModelStopped):
            return EXIT_STOPPED
        stream = self._calls.current
        return exit_code(stream) if stream is not None else 0

    def _ended(self, outcome: str, loop: ToolLoop) -> None:
        figures = loop.figures
        if self._json:
            if outcome == "stopped":
                self._write({"event": "state", "state": "stopped"})
            self._write({"event": "tools", "outcome": outcome, **figures.as_dict()})
            return
        share = round(figures.tools_share * 100)
        _say(
            f"turn: {len(figures.model_calls)} model calls {figures.model_ms / 1000:.2f} s, "
            f"{len(figures.tool_calls)} tool calls {figures.tools_ms / 1000:.2f} s "
            f"({share} % in tools), {outcome}"
        )

    def _tool_event(self, item: Any) -> None:
        if self._json:
            self._json_line(item)
        elif isinstance(item, ev.ToolCallReady):
            _say(f"tool {item.call.name} {item.call.arguments_json()} on {item.server or '?'}")
        elif isinstance(item, ev.ToolFinished):
            failed = " (error)" if item.is_error else ""
            _say(f"tool {item.call.name}{failed}: {_short(item.result.content)} ({item.ms:.1f} ms)")

    def _json_line(self, item: Any) -> None:
        call: Any = getattr(item, "call", None)
        if isinstance(item, ev.ToolCallReady):
            self._write({"event": "tool_call", "id": call.id, "name": call.name,
                         "arguments": call.arguments, "server": item.server})  # fmt: skip
        elif isinstance(item, ev.ApprovalWaiting):
            self._write({"event": "state", "state": "waiting_for_approval", "tool": call.name})
        elif isinstance(item, ev.ToolRunning):
            self._write({"event": "state", "state": "using_tool", "tool": call.name})
        elif isinstance(item, ev.ToolProgressed):
            progress = item.progress
            self._write({"event": "tool_progress", "id": call.id, "name": call.name,
                         "progress": progress.progress, "total": progress.total,
                         "message": progress.message})  # fmt: skip
        elif isinstance(item, ev.ToolFinished):
            self._write({"event": "tool_result", "id": call.id, "name": call.name,
                         "ms": round(item.ms, 3), "is_error": item.is_error,
                         "content": item.result.content})  # fmt: skip

    def _write(self, record: dict[str, object]) -> None:
        self._out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._out.flush()


def printer_for(args: argparse.Namespace, calls: Calls) -> ToolTurnPrinter:
    return ToolTurnPrinter(calls, bool(args.json), bool(getattr(args, "stages", False)))


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SHOWN_RESULT_CHARS else line[: SHOWN_RESULT_CHARS - 1] + "…"
