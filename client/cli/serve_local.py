"""`tachy serve-local`: run the embedded local engine until Ctrl-C.

Prints the URL and model name on stdout (one line each, for scripts), then waits.
Ctrl-C or SIGTERM stops the engine cleanly; exit code 0. If the engine dies on its
own, its last lines go to stderr and the exit code is 1.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from client.backends.errors import TachyError
from client.backends.local_engine import DEFAULT_HOST, LOCAL_MODEL_LABEL, LocalEngine

EXIT_FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address ({DEFAULT_HOST})")


def run(args: argparse.Namespace) -> int:
    engine = LocalEngine(host=args.host, port=args.port)
    print(f"Starting {LOCAL_MODEL_LABEL} ...", file=sys.stderr, flush=True)
    try:
        engine.start_sync()
    except TachyError as error:
        print(f"tachy serve-local: {error}", file=sys.stderr)
        return EXIT_FAILED
    stop_requested = threading.Event()
    previous = signal.signal(signal.SIGTERM, _on_terminate(stop_requested))
    try:
        print(f"url {engine.url}", flush=True)
        print(f"openai_url {engine.openai_url}", flush=True)
        print(f"model {engine.model}", flush=True)
        print(f"pid {engine.pid}", flush=True)
        print("Press Ctrl-C to stop.", file=sys.stderr, flush=True)
        return _wait(engine, stop_requested)
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        engine.stop_sync()
        print("Local engine stopped.", file=sys.stderr, flush=True)


def _wait(engine: LocalEngine, stop_requested: threading.Event) -> int:
    # Wake up a few times a second to notice an engine that died on its own.
    while not stop_requested.wait(0.25):
        if not engine.running:
            print(
                f"tachy serve-local: the engine stopped by itself.\n{engine.log_tail()}",
                file=sys.stderr,
            )
            return EXIT_FAILED
    return 0


def _on_terminate(stop_requested: threading.Event) -> Callable[[int, FrameType | None], None]:
    def handle(signum: int, frame: FrameType | None) -> None:
        stop_requested.set()

    return handle
