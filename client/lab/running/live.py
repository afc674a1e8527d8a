"""The live control: a presenter changes the TTFT, TPOT and fault of the next requests
while the lab runs (stdin of `tachy lab`, POST /lab/control, the app's Demo menu).

What is set stays until it is changed or cleared; it goes over the scenario, its
sequence and its faults. Commands, one a line (the JSON body of /lab/control says the
same with keys ttft_ms, tpot_ms, tier, fault, clear)::

    ttft 600              # fixed TTFT in ms
    tpot 25               # time per output token in ms
    tier typing           # the TTFT distribution and TPOT of a tier preset
    fault reset after_tokens=12
    fault none            # no fault, whatever the scenario says
    clear                 # back to the scenario
    show                  # what is set
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from client.lab.scenarios.scenario import (
    PRESETS,
    Distribution,
    Fault,
    Scenario,
    ScenarioError,
    parse_fault,
)

TIERS = ("instant", "fast", "typing", "slow")


@dataclass(frozen=True, slots=True)
class Live:
    ttft: Distribution | None = None
    tpot_ms: float | None = None
    fault_set: bool = False  # True: `fault` replaces the scenario's (None: no fault)
    fault: Fault | None = None

    def over(self, scenario: Scenario, fault: Fault | None) -> tuple[Scenario, Fault | None]:
        """The request's scenario and fault with what the presenter set."""
        changes: dict[str, Any] = {}
        if self.ttft is not None:
            changes["ttft"] = self.ttft
        if self.tpot_ms is not None:
            changes["tpot_ms"] = self.tpot_ms
        if changes:
            scenario = replace(scenario, **changes)
        return scenario, (self.fault if self.fault_set else fault)

    def describe(self) -> dict[str, Any]:
        return {
            "ttft_ms": None if self.ttft is None else self.ttft.p50_ms,
            "tpot_ms": self.tpot_ms,
            "fault": (self.fault.kind if self.fault else "none") if self.fault_set else None,
        }


def change(live: Live, body: dict[str, Any]) -> Live:
    """Apply /lab/control's JSON (or a parsed command); ScenarioError names what is wrong."""
    unknown = set(body) - {"ttft_ms", "tpot_ms", "tier", "fault", "clear"}
    if unknown:
        raise ScenarioError(f"unknown control key(s): {', '.join(sorted(unknown))}")
    if body.get("clear"):
        live = Live()
    if "tier" in body:
        tier = PRESETS.get(str(body["tier"]))
        if body["tier"] not in TIERS or tier is None:
            raise ScenarioError(f"tier must be one of {', '.join(TIERS)}")
        live = replace(live, ttft=tier.ttft, tpot_ms=tier.tpot_ms)
    if "ttft_ms" in body:
        live = replace(live, ttft=Distribution("fixed", _ms(body["ttft_ms"], "ttft_ms")))
    if "tpot_ms" in body:
        live = replace(live, tpot_ms=_ms(body["tpot_ms"], "tpot_ms"))
    if "fault" in body:
        value = body["fault"]
        fault = None if value in (None, "none", "ok") else parse_fault(value)
        live = replace(live, fault_set=True, fault=fault)
    return live


def command(line: str) -> dict[str, Any]:
    """One stdin line as /lab/control's JSON; {} for `show` and blank lines."""
    words = line.split()
    if not words or words[0] == "show":
        return {}
    verb, rest = words[0], words[1:]
    if verb == "clear" and not rest:
        return {"clear": True}
    if verb in ("ttft", "tpot", "tier") and len(rest) == 1:
        key = {"ttft": "ttft_ms", "tpot": "tpot_ms", "tier": "tier"}[verb]
        return {key: rest[0]}
    if verb == "fault" and rest:
        if rest[0] in ("none", "ok"):
            return {"fault": None}
        fields: dict[str, Any] = {"kind": rest[0]}
        for pair in rest[1:]:
            key, sep, value = pair.partition("=")
            if not sep:
                raise ScenarioError(f"fault fields are key=value, not {pair!r}")
            fields[key] = _number(value)
        return {"fault": fields}
    raise ScenarioError(
        f"unknown command {line.strip()!r}; commands: ttft MS, tpot MS, tier NAME, "
        "fault KIND [key=value ...], fault none, clear, show"
    )


def _ms(value: Any, key: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScenarioError(f"{key} must be a number of milliseconds") from None
    if not 0 <= number < 600_000:
        raise ScenarioError(f"{key} must be between 0 and 600000 ms")
    return number


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
