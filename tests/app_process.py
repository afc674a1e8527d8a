"""The desktop app as a process, driven for tests and benchmarks (the app itself reads
no test-only environment): what `tachy` runs, plus what a test needs done at start.

python -m tests.app_process [--open-conversation ID] [--send TEXT] [tachy's options]

--open-conversation opens that stored conversation and logs how many messages it has;
--send sends the text as if typed (it waits for the server like a typed question).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from client.ui.shell.app import TachyApp

ROOT = Path(__file__).resolve().parents[1]  # the cwd a test starts this from
log = logging.getLogger("tachy.ui")


def command(*options: str) -> list[str]:
    """The command line for a subprocess (run it with cwd=ROOT)."""
    return [sys.executable, "-m", "tests.app_process", *options]


def main(argv: Sequence[str] | None = None) -> int:
    from client.cli import build_parser
    from client.cli.app import run

    ours = argparse.ArgumentParser(prog="tests.app_process", add_help=False)
    ours.add_argument("--open-conversation", type=int)
    ours.add_argument("--send")
    wanted, rest = ours.parse_known_args(argv)

    def at_start(tachy: TachyApp) -> None:
        if wanted.open_conversation is not None:
            tachy.page.show_conversation(wanted.open_conversation)
            count = len(tachy.window.chat_view.keys())
            log.info("conversation %s opened with %d messages", wanted.open_conversation, count)
        if wanted.send:
            tachy.page.send(wanted.send)

    return run(build_parser().parse_args(rest), on_ready=at_start)


if __name__ == "__main__":
    sys.exit(main())
