"""Flow checks: every bundled scenario's [flow] played in the real window (offscreen)
by the runner `tachy lab check` uses, each step's expectations met.

A bundled scenario without a [flow] fails here (read_flow says so), and so does a
tester's five-line "503, then ok; Send, then Retry" that does not show exactly that.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from client.cli.lab.check import report
from client.lab import load_scenario, run_in_thread
from client.services.hud.hud_model import record_from_stored
from client.services.hud.waterfall import build_waterfall
from client.services.storage.stores import open_stores
from client.ui.demo.demo_live import bundled_scenarios
from client.ui.demo.flow_file import Flow, read_flow
from client.ui.shell.flow_runner import FlowResult, run_flow

BUNDLED = [path.stem for path in bundled_scenarios()]
FLOW_TIMEOUT_S = 90.0


def play(run, path: Path, data_dir: Path, flow: Flow | None = None) -> FlowResult:
    lab = run_in_thread(load_scenario(path))
    try:
        flow = flow or read_flow(path)
        return run(run_flow(flow, lab, data_dir, path.stem), FLOW_TIMEOUT_S)
    finally:
        lab.stop()


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_flow(name, run, data_dir) -> None:
    path = next(p for p in bundled_scenarios() if p.stem == name)
    result = play(run, path, data_dir)
    assert result.passed, report(result)
    assert len(result.steps) == len(read_flow(path).steps)


def test_a_cold_start_is_its_own_span_afterwards(run, data_dir) -> None:
    """cold-then-warm: the stage line said the model was loading (its flow checks
    that); the stored reply keeps the loading stage, and the waterfall shows Ollama's
    load_duration as the server's model load (the lab's 2 s)."""
    path = next(p for p in bundled_scenarios() if p.stem == "cold-then-warm")
    result = play(run, path, data_dir)
    assert result.passed, report(result)
    stores = open_stores(data_dir / "tachy.sqlite3")
    try:
        assert stores.metrics is not None
        cold, warm = (record_from_stored(r) for r in stores.metrics.query())
    finally:
        stores.close()
    assert cold.cold and not warm.cold
    assert cold.stages[0].name == "loading" and warm.stages[0].name == "understanding"
    rows = {row.label: row for row in build_waterfall(cold).rows}
    load = rows["server: model load"]
    assert load.end_ms - load.start_ms >= 1900, load  # the lab's 2 s (sleeps come late)
    warm_load = next(r for r in build_waterfall(warm).rows if r.label == "server: model load")
    assert warm_load.end_ms - warm_load.start_ms < 1900  # a few ms when loaded: no load


def test_503_then_retry_over_the_openai_api_too(run, data_dir) -> None:
    path = next(p for p in bundled_scenarios() if p.stem == "retry-after-503")
    result = play(run, path, data_dir, replace(read_flow(path), api="openai"))
    assert result.passed, report(result)
    assert result.api == "openai"


FIVE_LINES = """\
base = "fast"
steps = ["queue_full", "ok"]
[flow]
steps = [{ send = "Hi", expect = { state = "failed", text = "" } },
  { press = "Retry", expect = { state = "complete", buttons = [], answers = 1 } }]
"""


def test_a_testers_five_lines(run, data_dir, tmp_path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(FIVE_LINES, encoding="utf-8")
    result = play(run, path, data_dir)
    assert result.passed, report(result)
    sent, retried = (step.seen for step in result.steps)
    assert sent is not None and retried is not None
    assert sent.buttons == ("Retry", "Edit question") and "(HTTP 503)" in sent.banner
    assert retried.text and retried.tier == "fast"


def test_a_flow_that_is_not_met_says_which_expectation(run, data_dir, tmp_path) -> None:
    path = tmp_path / "wrong.toml"
    path.write_text(
        'steps = ["queue_full"]\nafter = "hold"\n'
        '[flow]\nsteps = [{ send = "Hi", expect = { state = "complete" } },'
        ' { press = "Continue" }]\n',
        encoding="utf-8",
    )
    result = play(run, path, data_dir)
    assert not result.passed
    failed, stopped = result.steps
    assert failed.misses == ['expected state "complete", saw "failed"']
    assert stopped.seen is None
    assert stopped.error == "no button 'Continue' is offered (the bar offers: Retry, Edit question)"


def test_stop_while_answering_keeps_the_words(run, data_dir, tmp_path) -> None:
    path = tmp_path / "stop.toml"
    path.write_text(
        'base = "fast"\n[flow]\nsteps = [{ send = "Hi", until = "answering" },\n'
        '  { press = "Stop", expect = { state = "stopped", banner = "was stopped" } }]\n',
        encoding="utf-8",
    )
    result = play(run, path, data_dir)
    assert result.passed, report(result)
    answering, stopped = (step.seen for step in result.steps)
    assert answering is not None and stopped is not None
    assert answering.state == "streaming" and answering.text
    assert stopped.text.startswith(answering.text) and stopped.buttons == ("Continue", "Retry")


TOOL_TURNS = """\
base = "fast"
[flow]
tools = "ask"

[[flow.steps]]
send = "Use add for 2 and 3."
expect = { card = 'add of Tachy demo tools? {"a": 2, "b": 3}', saw_stage = "Waiting for your" }
[[flow.steps]]
wait = 0.5
[[flow.steps]]
press = "Allow once"
expect = { state = "complete", card = "", tier = "fast", text = "add gave 5.0." }

[[flow.steps]]
send = "Use fail."
expect = { card = "Run the tool fail" }
[[flow.steps]]
press = "Allow once"
expect = { state = "complete", text = "fail gave Error executing tool fail" }

[[flow.steps]]
send = "Use add for 1 and 1."
[[flow.steps]]
press = "Deny"
expect = { state = "complete", text = "denied by the user" }

[[flow.steps]]
send = "Use slow_count for 60 seconds in 60 steps."
[[flow.steps]]
press = "Allow once"
until = "tool"
expect = { stage = "Using slow_count… " }
[[flow.steps]]
press = "Stop"
expect = { state = "stopped", stage = "" }
"""


def test_a_tool_turns_waits_scripted_in_a_flow(run, data_dir, tmp_path) -> None:
    """The approval card asks (the step settles there), Allow runs the tool, Deny tells
    the model, an error result is answered, Stop ends a running tool keeping the words;
    half a second at the card leaves the reply in the fast tier (not latency)."""
    path = tmp_path / "tools.toml"
    path.write_text(TOOL_TURNS, encoding="utf-8")
    result = play(run, path, data_dir)
    assert result.passed, report(result)
    running, stopped = (step.seen for step in result.steps[-2:])
    assert running is not None and stopped is not None
    assert stopped.text.startswith(running.text) and stopped.stage == ""
