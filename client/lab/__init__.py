"""The latency lab: a simulated Ollama + OpenAI-compatible server, and a chaos proxy.

Independent of the rest of ``client`` (checked by an import-linter contract), so the
backends and the lab check each other. See client/lab/README.md for dials and faults.
"""

from __future__ import annotations

from client.lab.scenario import (
    FAULT_KINDS,
    PRESETS,
    Distribution,
    Fault,
    Scenario,
    ScenarioError,
    load_scenario,
    scenario_from_dict,
)
from client.lab.server import LabServer, RunningLab, run_in_thread

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
