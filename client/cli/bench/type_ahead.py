"""`tachy bench --type-ahead CPS`: each prompt typed into a draft at CPS characters a
second with type-ahead on, then sent, against the same prompt pasted at once
(client/services/warming/type_ahead_bench.py). One line per mode:

    type-ahead: TTFT P50 48 ms, P95 61 ms (pasted: P50 842 ms, P95 900 ms)

Each of the n runs asks its own variant of the prompt (numbered at its start), typed
and pasted alike, so no prompt cache holds it from an earlier run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from client.backends import make_backend
from client.cli.common.chat_common import first_listed
from client.cli.common.server_wait import LOAD_WAIT_S, ModelWait
from client.services.storage.stores import Stores
from client.services.tachy import ManagedEngine, Tachy
from client.services.warming.type_ahead_bench import ModeFigures, compare, format_line

DEFAULT_PROMPT = (
    "I am reading a log from a build that failed on one machine and not on another. "
    "The compiler stops at the same file each time, with an error about a missing "
    "header, yet the header is installed on both machines and the include paths look "
    "the same to me. What should I check first, and in what order, to find why one "
    "machine cannot see it? Please keep the answer short."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--type-ahead",
        type=_cps,
        metavar="CPS",
        help="type each prompt at CPS characters a second with type-ahead on, then send "
        "it, and compare with the same prompt pasted at once",
    )


def wanted(args: argparse.Namespace) -> bool:
    return args.type_ahead is not None


def variants(prompt: str, n: int) -> list[str]:
    """2n texts: for each run, one typed and one pasted, each different from the start."""
    return [f"({i}) {prompt}" for i in range(1, 2 * n + 1)]


async def run(args: argparse.Namespace, prompt: str | None) -> int:
    tachy = Tachy(Stores(), warm_models=False)
    engine: ManagedEngine | None = None
    if args.local or not args.url:
        engine = tachy.local_engine()
        await engine.start()
    try:
        url = engine.url if engine else args.url
        backend = await make_backend(url, "openai" if engine else args.api, args.api_key)
        try:
            models = await ModelWait().models(backend, LOAD_WAIT_S, needed=not args.model)
            model = args.model or first_listed(backend, models)
            texts = variants(prompt or DEFAULT_PROMPT, args.n)
            typed, pasted = await compare(backend, model, texts, args.type_ahead, args.max_tokens)
        finally:
            await backend.aclose()
    finally:
        await tachy.aclose()
    write(typed, pasted, args.type_ahead, args.json)
    return 0 if typed.ttft_ms and pasted.ttft_ms else 1


def write(typed: ModeFigures, pasted: ModeFigures, cps: float, json_target: str | None) -> None:
    out = sys.stderr if json_target == "-" else sys.stdout
    out.write(format_line(typed, pasted) + "\n")
    out.flush()
    if json_target is None:
        return
    body = {"cps": cps, "type_ahead": typed.as_dict(), "pasted": pasted.as_dict()}
    text = json.dumps(body, indent=2)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


def _cps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of characters") from None
    if not 0 < value <= 10_000:
        raise argparse.ArgumentTypeError("CPS must be above 0 and at most 10000")
    return value
