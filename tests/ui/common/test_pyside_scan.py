"""PySide6's question "does this module mention PySide6?" gets the same answer from the
file's bytes as from PySide6's own inspect.getsource."""

from __future__ import annotations

import importlib
import sys

import client.ui  # noqa: F401  (installs the quicker answer)
from client.ui.common.pyside_scan import FEATURE_MODULE, read_bytes_instead

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
    asks = sys.modules[FEATURE_MODULE]._mod_uses_pyside
    assert getattr(asks, "reads_bytes", False)
    read_bytes_instead()  # a second call keeps the one wrapper
    assert sys.modules[FEATURE_MODULE]._mod_uses_pyside is asks


def test_each_module_gets_pysides_own_answer() -> None:
    asks = sys.modules[FEATURE_MODULE]._mod_uses_pyside
    answers = {}
    for name in MODULES:
        module = importlib.import_module(name)
        answers[name] = asks(module)
        assert answers[name] == asks.original(module), name
    assert answers["client.ui.shell.main_window"] and not answers["client.core.budget"]
    assert not answers["sys"] and not answers["_json"]
