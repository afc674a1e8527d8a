"""`tachy bench`: N streamed requests against one server, then a percentile table.
May import: chat, common, client.services, client.backends, client.core, client.ui.demo (--report).

    tachy bench --url http://127.0.0.1:11434 -m llama3.2 -n 20
    tachy bench --local --cold --json results.json

The table goes to stdout (to stderr when the JSON goes to stdout); a progress bar
appears on stderr once a run takes longer than a second.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

from client.backends import make_backend
from client.backends.base import Backend
from client.backends.engine.engine_settings import parse_spec
from client.backends.errors import TachyError
from client.backends.reasons import os_words
from client.cli.bench import cascade as bench_cascade
from client.cli.bench import fleet as bench_fleet
from client.cli.bench import modes as bench_modes
from client.cli.bench import race as bench_race
from client.cli.bench import router as bench_router
from client.cli.bench import spec as bench_spec
from client.cli.bench import tools as bench_tools
from client.cli.bench import type_ahead as bench_type_ahead
from client.cli.chat import tools as chat_tools
from client.cli.common import cascade_args, images, pool_args
from client.cli.common.chat_common import (
    EXIT_FAILED,
    EXIT_UNREACHABLE,
    failure_exit,
    first_listed,
    learning_root,
)
from client.cli.common.server_wait import LOAD_WAIT_S, ModelWait
from client.core.qoe import QoeSpread
from client.core.stats import Summary
from client.services.bench.runner import (
    DEFAULT_PROMPT,
    BenchReport,
    BenchSettings,
    RequestResult,
    run_bench,
    unload_ollama_model,
)
from client.services.bench.sweep import run_sweep
from client.services.events import AnswerFinished
from client.services.planning.planner import Route
from client.services.tachy import ManagedEngine, Tachy
from client.services.warming.cold_start import cold_start_then_warm


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="server URL (default: start the local engine)")
    parser.add_argument("--api", choices=["auto", "ollama", "openai"], default="auto")
    parser.add_argument("--api-key", help="bearer key for OpenAI-compatible servers")
    parser.add_argument("-m", "--model", help="model name (default: the server's first)")
    parser.add_argument("-n", type=_positive, default=20, help="measured requests (20)")
    parser.add_argument(
        "--warmup", type=_not_negative, default=1, help="requests run first, not reported (1)"
    )
    prompt = parser.add_mutually_exclusive_group()
    prompt.add_argument("--prompt", help="the message to send")
    prompt.add_argument("--prompt-file", type=Path, help="read the message from a file")
    parser.add_argument("--max-tokens", type=_positive, default=64, help="per answer (64)")
    parser.add_argument(
        "--concurrency", type=_positive, default=1, help="requests in flight at once (1)"
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="make the model cold first (Ollama: unload; --local: restart the engine) "
        "and report the first request separately",
    )
    parser.add_argument(
        "--warming",
        action="store_true",
        help="with --cold: after making it cold, warm the model as the app does at start, "
        "then time the first request (the first message a user sends)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the results as JSON to FILE (to stdout without FILE)",
    )
    parser.add_argument("--local", action="store_true", help="start the local engine for the run")
    parser.add_argument(
        "--spec",
        metavar="KIND",
        help="with --local: compare speculative decoding (ngram-simple, ngram-map-k, "
        "ngram-mod, ngram-cache, draft:PATH.gguf) against a run without it",
    )
    bench_modes.add_arguments(parser)
    cascade_args.add_arguments(parser)
    bench_race.add_arguments(parser)
    bench_type_ahead.add_arguments(parser)
    images.add_arguments(parser)
    pool_args.add_arguments(parser, several_policies=True)
    bench_router.add_arguments(parser)
    chat_tools.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if problem := bench_modes.conflict(args) or bench_router.conflict(args):
        print(f"tachy bench: {problem}", file=sys.stderr)
        return EXIT_UNREACHABLE  # a usage error, like argparse's: exit 2
    try:
        prompt = _read_prompt(args)
    except OSError as error:
        print(
            f"tachy bench: can't read the prompt file {args.prompt_file}: {os_words(error)}.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    try:
        if bench_tools.wanted(args):
            return asyncio.run(bench_tools.run(args, prompt))
        if bench_race.wanted(args):
            return asyncio.run(bench_race.run(args, prompt))
        if bench_type_ahead.wanted(args):
            given = prompt if (args.prompt or args.prompt_file) else None
            return asyncio.run(bench_type_ahead.run(args, given))
        if args.pool:
            return asyncio.run(bench_fleet.run(args, prompt))
        if cascade_args.wanted(args):
            given = prompt if (args.prompt or args.prompt_file) else None
            return asyncio.run(bench_cascade.run(args, given))
        return asyncio.run(_bench(args, prompt))
    except TachyError as error:
        return failure_exit(error, "tachy bench: ")


async def _bench(args: argparse.Namespace, prompt: str) -> int:
    if args.spec:
        return await _bench_spec(args, prompt)
    tachy, db = learning_root()  # the app's composition root: its engine, its predictors
    engine: ManagedEngine | None = None
    if args.local or not args.url:
        engine = tachy.local_engine()
        await engine.start()
    try:
        url = engine.url if engine else args.url
        api = "openai" if engine else args.api
        backend = await make_backend(url, api, args.api_key)
        try:
            models = await ModelWait().models(backend, LOAD_WAIT_S, needed=not args.model)
            model = args.model or first_listed(backend, models)
            attached = await images.prepare(args, backend, model)
            settings = BenchSettings(
                model=model,
                prompt=prompt,
                n=args.n,
                warmup=args.warmup,
                max_tokens=args.max_tokens,
                concurrency=args.concurrency,
                cold=args.cold,
                warming=args.cold and args.warming,
                images=tuple(a.sent for a in attached),
                attached=tuple(attached),
                **bench_modes.settings_extras(args),
            )
            progress = ProgressBar(sys.stderr)
            if args.sweep:
                points = await run_sweep(backend, settings, args.sweep, progress)
                progress.finish()
                bench_modes.write_sweep(points, args)
                return 0 if any(p.report.figures().completed for p in points) else EXIT_FAILED
            make_cold = _cold_hook(backend, model, engine) if args.cold else None
            if settings.warming:
                make_cold = cold_start_then_warm(make_cold, backend, model, engine=engine)
            report = await run_bench(backend, settings, make_cold, progress)
            progress.finish()
            _teach(tachy, Route(backend, model, backend.base_url, engine is not None), report)
        finally:
            await backend.aclose()
    finally:
        try:
            await tachy.aclose()  # saves what was learned; stops the local engine
        finally:
            db.close()
    _write_outputs(report, args.json)
    bench_modes.write_files(report, args)
    return _exit_code(report)


def _teach(tachy: Tachy, route: Route, report: BenchReport) -> None:
    """The root's TTFT predictor of this server and model learns from each answer, as
    from the window's."""
    for result in report.results:
        if result.ok:
            outcome = AnswerFinished(
                result.metrics, route, "complete", kind="bench", cold=result.cold
            )
            tachy.events.publish(outcome)


async def _bench_spec(args: argparse.Namespace, prompt: str) -> int:
    try:
        spec = parse_spec(args.spec)
    except ValueError as error:
        raise TachyError(f"{error}.") from None
    if args.url or not spec:
        raise TachyError("--spec needs --local and a kind of speculative decoding.")
    settings = BenchSettings(
        model="", prompt=prompt, n=args.n, warmup=args.warmup, max_tokens=args.max_tokens
    )
    return await bench_spec.compare(spec, settings, args)


def _cold_hook(
    backend: Backend, model: str, engine: ManagedEngine | None
) -> Callable[[], Awaitable[None]] | None:
    if engine is not None:
        return engine.restart
    if backend.api == "ollama":
        return lambda: unload_ollama_model(backend, model)
    print(
        "tachy bench: an OpenAI-compatible server can't be told to unload its model; "
        "the first request is reported separately but may be warm",
        file=sys.stderr,
    )
    return None


def _read_prompt(args: argparse.Namespace) -> str:
    if args.prompt_file is not None:
        return str(args.prompt_file.read_text(encoding="utf-8"))
    return str(args.prompt) if args.prompt else DEFAULT_PROMPT


def _write_outputs(report: BenchReport, json_target: str | None) -> None:
    if any(r.ok for r in report.results):  # else the one-line error says it all
        table_stream = sys.stderr if json_target == "-" else sys.stdout
        table_stream.write(format_report(report))
        table_stream.flush()
    if json_target is None:
        return
    text = json.dumps(report.as_dict(), indent=2)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


def _exit_code(report: BenchReport) -> int:
    if not report.errors:
        return 0
    if any(r.ok for r in report.results):
        return 0  # some answers failed: the table says how many
    first = report.results[0] if report.results else None
    if first is not None and first.error_type == "BackendUnreachable":
        print(f"tachy bench: {first.error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    if first is not None:
        print(f"tachy bench: every request failed: {first.error}", file=sys.stderr)
    return EXIT_FAILED


# -- the table ---------------------------------------------------------------


def format_report(report: BenchReport) -> str:
    s = report.settings
    lines = [
        f"server {report.server} ({report.api}), model {s.model}",
        f"{len(report.warm_results)} requests, concurrency {s.concurrency}, "
        f"max {s.max_tokens} tokens, errors {report.errors}"
        + (", output tokens estimated from chunk count" if report.output_tokens_estimated else ""),
        "",
        _row("metric", "n", "mean", "median", "p90", "p95", "p99"),
    ]
    for name, summary in report.summaries().items():
        lines.append(_summary_row(name, summary))
    lines.append(_qoe_row(report.qoe()))
    server = report.server_summaries()
    if server:
        lines.append("server-reported:")
        lines.extend(_summary_row(name, summary) for name, summary in server.items())
    for attachment in s.attached:  # what every request carried, and what it cost
        lines.append(images.cost_line(attachment))
    if s.attached and s.varies_start:
        lines.append(
            "each request starts with its own word, so the server encodes the images "
            "every time (no prompt cache reuses them)"
        )
    if empty := report.empty_answers:
        lines.append(
            f"{empty} of {len(report.warm_results)} answers had no text (the model stopped "
            "at once): counted as completed, with no first token to time"
        )
    lines.extend(["", *bench_modes.run_lines(report)])
    if (cold := report.cold_result) is not None:
        lines.extend(["", _cold_line(cold, s.warming)])
    for result in report.results:
        if not result.ok:
            lines.append(f"first error: {result.error}")
            break
    return "\n".join(lines) + "\n"


def _row(*cells: str) -> str:
    name, *rest = cells
    return f"{name:<20}" + "".join(f"{cell:>10}" for cell in rest)


def _summary_row(name: str, summary: Summary | None) -> str:
    if summary is None:
        return _row(name, "0", *["-"] * 5)
    values = (summary.mean, summary.median, summary.p90, summary.p95, summary.p99)
    return _row(name, str(summary.n), *(f"{v:.1f}" for v in values))


def _qoe_row(spread: QoeSpread) -> str:
    """Andes' QoE (client/core/qoe.py): its median and low tail, for a reader at the
    default pace; higher is better, 1.00 at most."""
    if spread.p50 is None or spread.p5 is None:
        return _row("qoe", "0", "-", "-")
    return _row("qoe", str(spread.n), f"P50 {spread.p50:.2f}", f"P5 {spread.p5:.2f}")


def _cold_line(cold: RequestResult, warmed: bool = False) -> str:
    m = cold.metrics
    label = "first request after warming" if warmed else "cold first request"
    if not cold.ok:
        return f"{label}: failed: {cold.error}"
    parts = [
        f"ttft {_fmt(m.ttft_ms)} ms",
        f"ttfo {_fmt(m.ttfo_ms)} ms",
        f"tpot {_fmt(m.tpot_ms)} ms",
        f"{_fmt(m.tokens_per_s)} tokens/s",
        f"qoe {'-' if m.qoe is None else format(m.qoe, '.2f')}",
        f"e2el {_fmt(m.e2el_ms)} ms",
    ]
    parts += [f"{name} {value:.1f}" for name, value in cold.server_figures().items()]
    return f"{label}: " + ", ".join(parts)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


class ProgressBar:
    """A one-line bar on stderr, drawn only once the run has taken a second."""

    def __init__(self, stream: TextIO, width: int = 30, delay_s: float = 1.0) -> None:
        self._stream = stream
        self._width = width
        self._delay_s = delay_s
        self._started = time.monotonic()
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        if time.monotonic() - self._started < self._delay_s:
            return
        filled = self._width * done // max(total, 1)
        bar = "#" * filled + "." * (self._width - filled)
        self._stream.write(f"\r[{bar}] {done}/{total}")
        self._stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _not_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value
