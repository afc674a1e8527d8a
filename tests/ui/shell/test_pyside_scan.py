"""PySide6's question "does this module mention PySide6?" gets the same answer from the
file's bytes as from PySide6's own inspect.getsource."""

from __future__ import annotations

import importlib
import sys

import client.ui.shell  # noqa: F401  (installs the quicker answer)
from client.ui.shell.pyside_scan import ASKS, FEATURE_MODULE, installed, read_bytes_instead

MODULES = (
    "client.ui.shell.main_window",  # says PySide6
    "client.ui.common.theme",
    "client.core.budget",  # does not
    "client.services.events",
    "json",  # the standard library
    "sys",  # built in: no file
    "_json",  # compiled
)


def test_the_launch_uses_the_quicker_answer() -> None:
    both = installed()
    assert both is not None
    asks = vars(sys.modules[FEATURE_MODULE])[ASKS]
    assert asks is both[1]
    read_bytes_instead()  # a second call keeps the one wrapper
    assert vars(sys.modules[FEATURE_MODULE])[ASKS] is asks


def test_each_module_gets_pysides_own_answer() -> None:
    both = installed()
    assert both is not None
    original, quicker = both
    answers = {}
    for name in MODULES:
        module = importlib.import_module(name)
        answers[name] = quicker(module)
        assert answers[name] == original(module), name
    assert answers["client.ui.shell.main_window"] and not answers["client.core.budget"]
    assert not answers["sys"] and not answers["_json"]
