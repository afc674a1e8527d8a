"""`tachy lab check FLOW`: play a scenario's [flow] in the real window, offscreen, against
the lab on a free loopback port, and print what the user saw at each step.

Exit status: 0 when every `expect` was met, 1 when one was not (or a step could not be
played), 2 when the flow cannot be read. The window runs on a fresh history in a
temporary folder; the report is English whatever the system's language.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from client.ui.demo.flow_file import Seen
    from client.ui.shell.flow_runner import FlowResult, StepResult

EXIT_UNMET = 1
EXIT_UNREADABLE = 2
SHOWN_CHARS = 72  # of the answer's text, in the report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "flow", metavar="FLOW", help="a bundled scenario's name (retry-after-503) or a file"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    path = flow_path(args.flow)
    if path is None:
        print(f"tachy lab check: no bundled scenario or file named {args.flow!r}", file=sys.stderr)
        return EXIT_UNREADABLE
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before the QApplication is made
    with tempfile.TemporaryDirectory(prefix="tachy-check-") as data_dir:
        os.environ["TACHY_DATA_DIR"] = data_dir  # a fresh history, never the user's
        from client.lab import ScenarioError
        from client.ui.demo.flow_file import FlowError
        from client.ui.shell.flow_runner import check_flow, english_figures

        english_figures()
        try:
            result = check_flow(path, Path(data_dir))
        except (FlowError, ScenarioError) as exc:
            print(f"tachy lab check: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    print(
        json.dumps(as_json(result), indent=2, ensure_ascii=False) if args.json else report(result)
    )
    return 0 if result.passed else EXIT_UNMET


def flow_path(flow: str) -> Path | None:
    """A file, else a bundled scenario by name (resources/scenarios/NAME.toml)."""
    given = Path(flow)
    if given.is_file():
        return given
    return bundled_scenarios().get(flow.removesuffix(".toml"))


def bundled_scenarios() -> dict[str, Path]:
    """The scenarios shipped with Tachy (resources/scenarios/*.toml), by name."""
    from client.ui.common.resources import resource  # no Qt: only where resources are

    return {path.stem: path for path in sorted(resource("scenarios").glob("*.toml"))}


# --- the report ----------------------------------------------------------------------
def report(result: FlowResult) -> str:
    lines = [f"flow {result.name}: lab {result.lab_url}, {result.api} API, model {result.model}"]
    for number, step in enumerate(result.steps, 1):
        lines.append(f"step {number}: {step.step.describe()}")
        lines.extend(f"  {line}" for line in _step_lines(step))
    unmet = sum(not step.passed for step in result.steps)
    played = len(result.steps)
    if result.passed:
        lines.append(f"passed: {_steps(played)}, every expectation met")
    else:
        lines.append(f"FAILED: {unmet} of {_steps(played)} did not show what was expected")
    return "\n".join(lines)


def _steps(count: int) -> str:
    return "1 step" if count == 1 else f"{count} steps"


def _step_lines(step: StepResult) -> list[str]:
    if step.seen is None:
        return [f"FAILED: {step.error}"]
    seen = step.seen
    lines = [
        f"after {seen.seconds:.2f} s",
        f"answer:  {_answer(seen)}",
        f"stage:   {seen.stage or '(empty)'}",
    ]
    if seen.stages:
        lines.append(f"shown:   {' -> '.join(seen.stages)}")
    lines += [
        f"tier:    {_tier(seen)}",
        f"banner:  {seen.banner or '(none)'}",
        f"buttons: {' '.join(f'[{b}]' for b in seen.buttons) or '(none)'}",
    ]
    if seen.card:
        lines.append(f"card:    {seen.card}")
    lines += [f"FAILED: {miss}" for miss in step.misses]
    if step.step.expect and not step.misses:
        lines.append(f"ok: {', '.join(sorted(step.step.expect))} as expected")
    return lines


def _answer(seen: Seen) -> str:
    if not seen.state:
        return "(none yet)"
    text = seen.text if len(seen.text) <= SHOWN_CHARS else seen.text[: SHOWN_CHARS - 1] + "…"
    shown = f"{len(seen.text.split())} words {json.dumps(text, ensure_ascii=False)}"
    thinking = f", {len(seen.thinking.split())} words of thinking" if seen.thinking else ""
    answers = "1 answer" if seen.answers == 1 else f"{seen.answers} answers"
    return f"{seen.state}, {shown if text else 'no text'}{thinking} ({answers} in the chat)"


def _tier(seen: Seen) -> str:
    if seen.ttft_ms is None:
        return seen.tier or "(no HUD)"
    return f"{seen.tier} (first token after {seen.ttft_ms:.0f} ms)"


def as_json(result: FlowResult) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "flow": result.name,
        "lab": result.lab_url,
        "api": result.api,
        "model": result.model,
        "passed": result.passed,
        "steps": [
            {
                "do": step.step.describe(),
                "expect": step.step.expect,
                "seen": None if step.seen is None else asdict(step.seen),
                "unmet": step.misses,
                "error": step.error,
            }
            for step in result.steps
        ],
    }
