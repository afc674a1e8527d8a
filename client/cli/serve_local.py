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

from client.backends.engine.engine_settings import EngineSettings, parse_spec
from client.backends.engine.local_engine import DEFAULT_HOST, LOCAL_MODEL_LABEL, LocalEngine
from client.backends.errors import TachyError

EXIT_FAILED = 1
EXIT_USAGE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address ({DEFAULT_HOST})")
    parser.add_argument(
        "--spec",
        default="",
        metavar="KIND",
        help="speculative decoding: ngram-simple, ngram-map-k, ngram-mod, ngram-cache or "
        "draft:PATH.gguf (default: off)",
    )
    parser.add_argument("--threads", type=int, default=None, help="threads (half the cores)")
    parser.add_argument("--slots", type=int, default=None, help="parallel slots")
    parser.add_argument("--batch", type=int, default=None, help="prompt tokens per batch")


def engine_settings(args: argparse.Namespace) -> EngineSettings:
    """The engine's settings from the command line; ValueError with one sentence."""
    settings = EngineSettings.default().with_changes(spec=parse_spec(args.spec))
    for name, field in (("threads", "threads"), ("slots", "n_parallel"), ("batch", "n_batch")):
        value = getattr(args, name)
        if value is not None:
            if value < 1:
                raise ValueError(f"--{name} must be at least 1")
            settings = settings.with_changes(**{field: value})
    return settings


def run(args: argparse.Namespace) -> int:
    try:
        settings = engine_settings(args)
    except ValueError as error:
        print(f"tachy serve-local: {error}.", file=sys.stderr)
        return EXIT_USAGE
    engine = LocalEngine(host=args.host, port=args.port, settings=settings)
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
        if settings.spec:
            print(f"Speculative decoding: {settings.spec}", file=sys.stderr, flush=True)
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
