"""`tachy lab check FLOW` in its own process: the report, --json, and the exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tachy(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("QT_QPA_PLATFORM", None)  # the command goes offscreen by itself
    return subprocess.run(
        [sys.executable, "-m", "client", "lab", "check", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )


def test_a_bundled_flow_prints_each_step_and_passes() -> None:
    done = tachy("retry-after-503")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("flow retry-after-503: lab http://127.0.0.1:")
    assert 'step 1: send "Why is the sky blue?"' in lines
    assert "  buttons: [Retry] [Edit question]" in lines
    assert "  tier:    none" in lines
    assert "step 2: press Retry" in lines
    assert any(line.startswith("  tier:    fast (first token after ") for line in lines)
    assert lines[-1] == "passed: 2 steps, every expectation met"
    assert done.stderr == ""


def test_json_and_an_unmet_expectation_exit_1(tmp_path) -> None:
    path = tmp_path / "wrong.toml"
    path.write_text(
        'steps = ["queue_full"]\n[flow]\nsteps = [{ send = "Hi", expect = { tier = "fast" } }]\n',
        encoding="utf-8",
    )
    done = tachy(str(path), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is False
    (step,) = report["steps"]
    assert step["unmet"] == ['expected tier "fast", saw "none"']
    assert step["seen"]["state"] == "failed" and step["seen"]["buttons"] == [
        "Retry",
        "Edit question",
    ]


def test_what_cannot_be_played_is_one_sentence(tmp_path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text('base = "fast"\n', encoding="utf-8")
    for args, sentence in (
        (("no-such-flow",), "tachy lab check: no bundled scenario or file named 'no-such-flow'\n"),
        (
            (str(plain),),
            "tachy lab check: plain.toml has no [flow]: nothing to play in the window\n",
        ),
    ):
        done = tachy(*args)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", sentence)
