"""A flow: what a tester does in the window, step by step, and what each step must show.

It lives in the scenario file, beside the lab's dials, so one file says both "503, then
ok" and "Send, then Retry" (`tachy lab check FILE` plays it; client/ui/shell/flow_runner.py)::

    base = "fast"
    steps = [{ kind = "queue_full" }, { kind = "ok" }]
    [flow]
    steps = [
      { send = "Why is the sky blue?", expect = { state = "failed", text = "" } },
      { press = "Retry", expect = { state = "complete", buttons = [] } },
    ]

A turn with tools: `tools = "ask"` (or "allow") in [flow] offers the bundled demo MCP
server (client/lab/mcp_demo) to the window's turns, asking before each call (or not); a
step settles when the approval card asks too, `press` clicks the card's buttons ("Allow
once", "Deny" ...), `until = "tool"` settles once a tool runs, and `expect.card` checks
the card's question and arguments.

No Qt here: reading a file and checking what was seen are plain Python.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ACTIONS = ("send", "press", "key", "model", "control", "wait")
UNTIL = ("settled", "answering", "tool")
TOOLS = ("", "ask", "allow")  # the demo MCP server: not offered, each call asked, or run
FLOW_KEYS = {"steps", "model", "api", "warm", "slow_start_after_s", "stall_timeout_s", "tools"}
STEP_KEYS = {*ACTIONS, "until", "timeout", "expect"}
# "" = empty, else contains:
TEXT_CHECKS = ("stage", "banner", "text", "thinking", "saw_stage", "card")
EXPECT_KEYS = {
    *TEXT_CHECKS,
    "state",
    "tier",
    "buttons",
    "answers",
    "min_words",
    "min_thinking_words",
    "keeps_text",
    "seconds_at_least",
    "seconds_below",
}
DEFAULT_STEP_TIMEOUT_S = 30.0


class FlowError(ValueError):
    """A flow that cannot be played; the message says which step and key."""


@dataclass(frozen=True, slots=True)
class FlowStep:
    action: str  # one of ACTIONS
    value: str | float  # the text sent, the button's label, the seconds waited ...
    until: str = "settled"
    timeout_s: float = DEFAULT_STEP_TIMEOUT_S
    expect: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text sent, the button pressed, the model or shortcut chosen."""
        return str(self.value)

    @property
    def seconds(self) -> float:
        """A wait's seconds (0 for other steps)."""
        return self.value if isinstance(self.value, float | int) else 0.0

    def describe(self) -> str:
        if self.action in ("send", "control"):
            return f"{self.action} {json.dumps(self.value, ensure_ascii=False)}"
        if self.action == "wait":
            return f"wait {self.value} s"
        return f"{self.action} {self.value}"


@dataclass(frozen=True, slots=True)
class Flow:
    steps: tuple[FlowStep, ...]
    model: str | None = None  # None: the lab's first model
    api: str = "ollama"
    warm: bool = False  # True: the window warms the model as the app does
    slow_start_after_s: float | None = None  # None: the app's own
    stall_timeout_s: float | None = None
    tools: str = ""  # one of TOOLS


@dataclass(frozen=True, slots=True)
class Seen:
    """What the user saw once a step had settled."""

    state: str  # the last answer's state ("" before any answer)
    text: str  # the last answer's text, as kept
    thinking: str
    stage: str  # the status line under the chat
    stages: tuple[str, ...]  # every status line shown while the step ran
    tier: str  # the HUD's tier of the last reply ("none": no first token, "" no HUD)
    ttft_ms: float | None  # the HUD's time to first token of the last reply
    banner: str  # the sentence of the bar of choices
    buttons: tuple[str, ...]  # the choices offered, as labelled
    answers: int  # answers in the conversation
    seconds: float  # how long the step took to settle
    card: str = ""  # the approval card's question and arguments ("" when it is not shown)

    def field(self, name: str) -> object:
        """One of the fields a flow's expectation names (state, text, tier ...)."""
        values: dict[str, object] = asdict(self)
        return values[name]


def read_flow(path: Path) -> Flow:
    """The [flow] table of a scenario file (.toml or .json)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise FlowError(f"{path.name}: {exc}") from exc
    table = data.get("flow") if isinstance(data, dict) else None
    if table is None:
        raise FlowError(f"{path.name} has no [flow]: nothing to play in the window")
    return flow_from_dict(table)


def flow_from_dict(table: object) -> Flow:
    if not isinstance(table, dict):
        raise FlowError("flow must be a table with 'steps'")
    unknown = set(table) - FLOW_KEYS
    if unknown:
        raise FlowError(f"unknown flow key(s): {', '.join(sorted(unknown))}")
    steps = table.get("steps")
    if not isinstance(steps, list) or not steps:
        raise FlowError("flow.steps must be a non-empty list of tables")
    api = table.get("api", "ollama")
    if api not in ("ollama", "openai"):
        raise FlowError("flow.api must be 'ollama' or 'openai'")
    model = table.get("model")
    if model is not None and not isinstance(model, str):
        raise FlowError("flow.model must be a model's name")
    tools = table.get("tools", "")
    if tools not in TOOLS:
        raise FlowError("flow.tools must be 'ask' or 'allow'")
    return Flow(
        tuple(_step(number, item) for number, item in enumerate(steps, 1)),
        model,
        api,
        bool(table.get("warm", False)),
        _seconds(table, "slow_start_after_s"),
        _seconds(table, "stall_timeout_s"),
        tools,
    )


def _step(number: int, item: object) -> FlowStep:
    where = f"flow step {number}"
    if not isinstance(item, dict):
        raise FlowError(f'{where}: a step is a table such as {{ send = "Hello" }}')
    unknown = set(item) - STEP_KEYS
    if unknown:
        raise FlowError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    actions = [a for a in ACTIONS if a in item]
    if len(actions) != 1:
        raise FlowError(f"{where}: say one of {', '.join(ACTIONS)} (found {len(actions)})")
    action = actions[0]
    value = item[action]
    if action == "wait":
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise FlowError(f"{where}: wait is a number of seconds")
    elif not isinstance(value, str) or not value.strip():
        raise FlowError(f"{where}: {action} needs some text")
    until = item.get("until", "settled")
    if until not in UNTIL:
        raise FlowError(f"{where}: until must be {' or '.join(UNTIL)}")
    timeout = _seconds(item, "timeout") or DEFAULT_STEP_TIMEOUT_S
    return FlowStep(action, value, until, timeout, _expect(where, item.get("expect", {})))


def _expect(where: str, expect: object) -> dict[str, Any]:
    if not isinstance(expect, dict):
        raise FlowError(f"{where}: expect must be a table")
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise FlowError(f"{where}: unknown expect key(s) {', '.join(sorted(unknown))}")
    for key in (*TEXT_CHECKS, "state", "tier"):
        if key in expect and not isinstance(expect[key], str):
            raise FlowError(f"{where}: expect.{key} must be text")
    buttons = expect.get("buttons", [])
    if not isinstance(buttons, list) or not all(isinstance(b, str) for b in buttons):
        raise FlowError(f"{where}: expect.buttons must be a list of labels")
    for key in ("answers", "min_words", "min_thinking_words", "seconds_at_least", "seconds_below"):
        value = expect.get(key, 0)
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise FlowError(f"{where}: expect.{key} must be a number >= 0")
    return dict(expect)


def _seconds(table: dict[str, Any], key: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise FlowError(f"{key} must be a number of seconds > 0")
    return float(value)


# --- checking what was seen ----------------------------------------------------------
def unmet(expect: dict[str, Any], seen: Seen, before: Seen | None) -> list[str]:
    """One sentence per expectation the step did not meet (empty: all were met)."""
    misses: list[str] = []
    for key in TEXT_CHECKS:
        if key in expect:
            shown = " | ".join(seen.stages) if key == "saw_stage" else str(seen.field(key))
            if not _text_matches(expect[key], shown):
                misses.append(_miss(key, expect[key], shown))
    for key in ("state", "tier", "answers"):
        if key in expect and expect[key] != seen.field(key):
            misses.append(_miss(key, expect[key], seen.field(key)))
    if "buttons" in expect and tuple(expect["buttons"]) != seen.buttons:
        misses.append(_miss("buttons", expect["buttons"], list(seen.buttons)))
    words = len(seen.text.split())
    if words < expect.get("min_words", 0):
        misses.append(f"expected at least {expect['min_words']} words, saw {words}")
    thought = len(seen.thinking.split())
    if thought < expect.get("min_thinking_words", 0):
        misses.append(
            f"expected at least {expect['min_thinking_words']} words of thinking, saw {thought}"
        )
    if expect.get("keeps_text"):
        kept = before.text if before is not None else ""
        if not (kept and seen.text.startswith(kept) and len(seen.text) > len(kept)):
            misses.append("expected the text before this step kept and added to")
    if seen.seconds < expect.get("seconds_at_least", 0):
        misses.append(f"expected at least {expect['seconds_at_least']} s, took {seen.seconds:.2f}")
    if "seconds_below" in expect and seen.seconds >= expect["seconds_below"]:
        misses.append(f"expected under {expect['seconds_below']} s, took {seen.seconds:.2f}")
    return misses


def _text_matches(wanted: str, shown: str) -> bool:
    return shown == "" if wanted == "" else wanted in shown


def _miss(key: str, wanted: object, shown: object) -> str:
    how = "" if isinstance(wanted, list | int) or key in ("state", "tier") else "containing "
    if wanted == "":
        how = "empty "
        wanted = ""
    return f"expected {key} {how}{json.dumps(wanted, ensure_ascii=False)}, saw " + json.dumps(
        shown, ensure_ascii=False
    )


def comparable(text: str) -> str:
    """A status line with its numbers taken out ("Loading model… 1.2 s" -> "Loading model… # s"),
    so the line ticking every 0.1 s counts as one line shown."""
    return re.sub(r"\d+(?:[.,]\d+)*", "#", text)
