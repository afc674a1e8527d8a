"""Opens the desktop app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from client.ui.app import run_app

    return run_app(url=args.url, api=args.api, model=args.model)
