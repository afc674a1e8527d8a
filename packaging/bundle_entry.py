"""The bundle's entry point (packaging/bundle.py freezes this file as `tachy`).

A frozen app has no `python -m`: the local engine starts its child as
`<sys.executable> -m client.backends.engine.engine_child ...` (client/backends/engine/local_engine.py),
and in the bundle sys.executable is this program, so it answers that one form itself.
Everything else is the `tachy` command.
"""

from __future__ import annotations

import sys

ENGINE_CHILD = ["-m", "client.backends.engine.engine_child"]


def main() -> int:
    if sys.argv[1:3] == ENGINE_CHILD:
        from client.backends.engine import engine_child

        return engine_child.main(sys.argv[3:])
    from client.cli import main as tachy

    return tachy()


if __name__ == "__main__":
    sys.exit(main())
