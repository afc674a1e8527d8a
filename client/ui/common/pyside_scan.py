"""A quicker answer to a question PySide6 asks of every module imported after it.

For its `from __feature__ import snake_case` switch (which Tachy does not use) PySide6
reads each newly imported module's source through inspect.getsource (linecache, the
tokenizer's encoding check) to see whether it mentions "PySide6": 49 modules before the
window's first paint, ~2 % of the launch's instructions. `read_bytes_instead()` gives
the same answer from the file's bytes. Should a PySide6 release drop that function,
this does nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (installs shibokensupport.feature)

FEATURE_MODULE = "shibokensupport.feature"


def read_bytes_instead() -> None:
    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or original is None or getattr(original, "reads_bytes", False):
        return
    setattr(feature, "_mod_uses_pyside", _by_bytes(original))  # noqa: B010  (private)


def _by_bytes(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def mentions_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)  # built in, compiled or without a file: PySide's way
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return original(module)

    # Marks: one wrapper however often this runs; the tests compare with the original.
    mentions_pyside.reads_bytes = True  # type: ignore[attr-defined]
    mentions_pyside.original = original  # type: ignore[attr-defined]
    return mentions_pyside
