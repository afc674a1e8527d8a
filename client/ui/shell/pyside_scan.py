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
ASKS = "_mod_uses_pyside"  # PySide6's function (private: looked up, never assumed)
Asks = Callable[[ModuleType], bool]
_installed: dict[str, Asks] = {}  # "original" and "quicker", once installed


def read_bytes_instead() -> None:
    feature = sys.modules.get(FEATURE_MODULE)
    names = vars(feature) if feature is not None else {}
    original = names.get(ASKS)
    if original is None or original is _installed.get("quicker"):
        return
    _installed.update(original=original, quicker=_by_bytes(original))
    names[ASKS] = _installed["quicker"]


def installed() -> tuple[Asks, Asks] | None:
    """(PySide6's own, the quicker) once installed: the tests compare their answers."""
    if not _installed:
        return None
    return _installed["original"], _installed["quicker"]


def _by_bytes(original: Asks) -> Asks:
    def mentions_pyside(module: ModuleType) -> bool:
        path = vars(module).get("__file__")
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)  # built in, compiled or without a file: PySide's way
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return original(module)

    return mentions_pyside
