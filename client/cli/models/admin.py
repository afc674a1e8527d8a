"""`tachy models --url URL pull NAME` and `tachy models --url URL rm NAME` (Ollama).

pull prints one progress line a second (and the last one), rm deletes the model.
"""

from __future__ import annotations

import argparse
import sys
import time

from client.cli.chat import ServerChoice
from client.core.printable import visible
from client.services.servers.model_admin import PullProgress, delete_model, pull_model, size_text

PRINT_EVERY_S = 1.0


async def pull(args: argparse.Namespace) -> str:
    async with ServerChoice(args) as backend:
        last = 0.0
        progress = PullProgress("")
        async for progress in pull_model(backend, args.name):
            now = time.monotonic()
            if now - last >= PRINT_EVERY_S or progress.done:
                last = now
                print(describe(progress), file=sys.stderr, flush=True)
        return f"pulled {visible(args.name)}"


async def remove(args: argparse.Namespace) -> str:
    async with ServerChoice(args) as backend:
        await delete_model(backend, args.name)
        return f"deleted {visible(args.name)}"


def describe(progress: PullProgress) -> str:
    line = visible(progress.status)
    if progress.fraction is not None:
        done, total = size_text(progress.completed) or "0 bytes", size_text(progress.total)
        line += f"  {progress.fraction:.0%} ({done} of {total})"
    return line
