"""`tachy doctor`: check this machine, one line per check with the fix; exit 0 only
when every check passes ("info" lines, such as what listens on a port, never fail).

tachy doctor               # everything, including starting the local engine (seconds)
tachy doctor --no-engine   # all but starting the engine
"""

from __future__ import annotations

import argparse
import os
import sys

from client.services.doctor.checks import Check, Status, iter_checks

EXIT_PROBLEMS = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-engine", action="store_true", help="do not start the local engine to test it"
    )


def run(args: argparse.Namespace) -> int:
    checks: list[Check] = []
    try:
        for check in iter_checks(start_engine=not args.no_engine):
            print(check.line(), flush=True)  # line by line: the engine start takes seconds
            checks.append(check)
        failed = sum(1 for c in checks if c.status is Status.FAIL)
        print("All checks passed." if not failed else f"{failed} check(s) failed.")
    except BrokenPipeError:  # `tachy doctor | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return 0 if not failed else EXIT_PROBLEMS
