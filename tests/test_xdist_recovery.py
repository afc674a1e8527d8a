"""A worker that crashes ends the run, failing and naming its test (tests/xdist_recovery.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
# Long enough for a loaded machine to run nine trivial tests in two processes; a run
# that hangs (xdist 3.8.0 unmended) never ends.
HANG_S = 240

FINISHED_FIRST = "def test_one():\n    pass\n\ndef test_two():\n    pass\n"
CRASHES = """
import os

def test_before():
    pass

def test_crash():
    os._exit(1)

def test_after():
    pass
"""


def test_a_crashed_worker_ends_the_run_and_names_its_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One worker, so it has finished the first files' groups when it dies in the third:
    # unmended, those come back as empty units and the run never ends.
    pytester.makepyfile(
        test_a=FINISHED_FIRST, test_b=FINISHED_FIRST, test_c=CRASHES, test_d=FINISHED_FIRST
    )
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result = pytester.runpytest_subprocess(
        "-p",
        "tests.xdist_recovery",
        "-p",
        "no:cacheprovider",
        "-n",
        "1",
        "--dist",
        "loadgroup",
        timeout=HANG_S,
    )
    result.stdout.fnmatch_lines(["*test_c.py::test_crash*"])
    result.assert_outcomes(passed=8, failed=1)
