"""The latency lab: a simulated Ollama + OpenAI-compatible server, and a chaos proxy.
May import: aiohttp, nothing else of client (a contract); and the standard library.

Independent of the rest of ``client`` (checked by an import-linter contract), so the
backends and the lab check each other. See client/lab/README.md for dials and faults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.lab.scenarios.scenario import (
    FAULT_KINDS,
    PRESETS,
    Distribution,
    Fault,
    Scenario,
    ScenarioError,
    load_scenario,
    scenario_from_dict,
)

if TYPE_CHECKING:
    from client.lab.server import LabServer, RunningLab, run_in_thread

_SERVER_NAMES = {"LabServer", "RunningLab", "run_in_thread"}


def __getattr__(name: str) -> Any:
    # The server pulls in aiohttp; the app imports the lab's presets at start-up and
    # only needs the server when the Demo menu starts it.
    if name in _SERVER_NAMES:
        from client.lab import server

        return getattr(server, name)
    raise AttributeError(name)


__all__ = [
    "FAULT_KINDS",
    "PRESETS",
    "Distribution",
    "Fault",
    "LabServer",
    "RunningLab",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "run_in_thread",
    "scenario_from_dict",
]
