"""Opens the desktop app."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from client.ui.shell.app import TachyApp


def run(args: argparse.Namespace, on_ready: Callable[[TachyApp], None] | None = None) -> int:
    from client.ui.shell.app import run_app

    return run_app(url=args.url, api=args.api, model=args.model, lang=args.lang, on_ready=on_ready)
