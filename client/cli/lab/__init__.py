"""`tachy lab`: the latency lab, a simulated Ollama + OpenAI-compatible server, or a chaos proxy.
May import: client.lab, client.ui (the offscreen check), client.backends.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import signal
import sys
import threading
from pathlib import Path

from client.backends.reasons import os_words
from client.cli.lab import check as lab_check
from client.lab import PRESETS, LabServer, ScenarioError, load_scenario
from client.lab.running.live import command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument("--port", type=int, default=11435, help="port (0 picks a free one)")
    parser.add_argument(
        "--scenario",
        default="fast",
        help=f"a preset ({', '.join(PRESETS)}), a bundled scenario (retry-after-503 ...) "
        "or a .toml/.json scenario file",
    )
    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="chaos proxy: forward to this OpenAI-compatible server, applying the dials",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="with --upstream: pass requests through untouched and save each reply with its "
        "timing to FILE (JSON), which --scenario FILE replays",
    )
    parser.add_argument(
        "--scrub",
        action="store_true",
        help="with --record: replace the replies' text by the lab's corpus, to share the file",
    )
    checks = parser.add_subparsers(dest="lab_command", metavar="check")
    help_text = "play a scenario's [flow] in the window (offscreen) and print what it showed"
    lab_check.add_arguments(checks.add_parser("check", help=help_text, description=help_text))


def run(args: argparse.Namespace) -> int:
    if getattr(args, "lab_command", None) == "check":
        return lab_check.run(args)
    try:
        scenario = load_scenario(scenario_source(args.scenario))
    except ScenarioError as exc:
        print(f"tachy lab: {exc}", file=sys.stderr)
        return 2
    if (args.record and not args.upstream) or (args.scrub and not args.record):
        print(
            "tachy lab: --record needs --upstream URL, and --scrub needs --record", file=sys.stderr
        )
        return 2
    lab = LabServer(scenario, args.upstream, args.record, args.scrub)
    try:
        asyncio.run(_serve(lab, args.host, args.port))
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"tachy lab: cannot listen on {where}: {os_words(exc)}.", file=sys.stderr)
        return 1
    return 0


def scenario_source(name: str) -> str | Path:
    """A preset's name, a file, or a bundled scenario's name (resources/scenarios/NAME.toml);
    ScenarioError naming them all when it is none of these."""
    if name in PRESETS or Path(name).is_file():
        return name
    found = lab_check.flow_path(name)
    if found is not None:
        return found
    bundled = lab_check.bundled_scenarios()
    raise ScenarioError(
        f"{name!r} is not a preset, a bundled scenario or a file. Presets: "
        f"{', '.join(PRESETS)}. Bundled scenarios: {', '.join(bundled) or 'none'}."
    )


async def _serve(lab: LabServer, host: str, port: int) -> None:
    url = await lab.start(host, port)
    # This process only serves the lab: move everything loaded so far out of the
    # collector's sight, so a full collection never pauses a stream for tens of ms.
    gc.collect()
    gc.freeze()
    stop = _stop_on_signals()
    if lab.recorder is not None:
        await _record(lab, url, stop)
        return
    mode = f"proxy to {lab.state.upstream}" if lab.state.upstream else "simulated server"
    print(f"tachy lab: {mode}, scenario {lab.scenario.name!r}, model {lab.scenario.model!r}")
    print(f"  Ollama API: {url}/api/chat   OpenAI API: {url}/v1/chat/completions")
    print("  Live control: type 'ttft 600', 'tier slow', 'fault reset', 'clear', 'show'")
    print(f"  (or POST the same as JSON to {url}/lab/control)")
    print("  Ctrl+C to stop", flush=True)
    _read_commands(lab, asyncio.get_running_loop())
    try:
        await stop.wait()
    finally:
        await lab.stop()


def _stop_on_signals() -> asyncio.Event:
    """Set by Ctrl+C, SIGTERM or SIGHUP: each stops the lab the same clean way (a
    recording's file is complete when the process ends)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None:
            try:
                loop.add_signal_handler(number, stop.set)
            except (NotImplementedError, RuntimeError):  # Windows: Ctrl+C still interrupts
                pass
    return stop


async def _record(lab: LabServer, url: str, stop: asyncio.Event) -> None:
    assert lab.recorder is not None
    print(f"tachy lab: recording {lab.state.upstream} to {lab.recorder.path}")
    print(f"  Point the client at {url} instead of the server (same API, nothing changed)")
    print("  Each reply is saved as it ends; Ctrl+C to stop", flush=True)
    try:
        await stop.wait()
    finally:
        await lab.stop()


def _read_commands(lab: LabServer, loop: asyncio.AbstractEventLoop) -> None:
    """Live control from stdin, one command a line (client/lab/running/live.py), until EOF.

    A daemon thread: a blocked read must not hold the process open at Ctrl+C.
    """

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(_obey, lab, line)

    if sys.stdin is not None and not sys.stdin.closed:
        threading.Thread(target=read, name="tachy-lab-stdin", daemon=True).start()


def _obey(lab: LabServer, line: str) -> None:
    try:
        now = lab.control(command(line))
    except ScenarioError as exc:
        print(f"tachy lab: {exc}", file=sys.stderr, flush=True)
        return
    print(f"tachy lab: next requests: {json.dumps(now)}", flush=True)
