"""The suite's tiers: `pytest` runs the tests (behaviour, passes on a busy machine),
`pytest -m perf` the benchmarks (tests/perf: speed and memory goals), `pytest -m vllm`
the tests against a real vLLM (tests/vllm). All are CI steps and none may collect
nothing (pytest's exit code 5)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


class _Collected:
    """The ids of the tests a pytest run selected (after -m's deselection)."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.ids = [item.nodeid for item in session.items]


def _collected(*args: str) -> tuple[int, list[str]]:
    """(exit code, test ids) of `pytest --collect-only` with these args, run from the root
    in this process: the test modules are imported already, where a new Python process
    took 20-50 s to import them again for each of the six runs."""
    found = _Collected()
    code = pytest.main(["--co", "-q", "-p", "no:cacheprovider", *args], plugins=[found])
    return int(code), found.ids


@pytest.fixture(autouse=True)
def at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # as a command typed there: its pyproject.toml, its tests/


def test_the_default_run_leaves_every_benchmark_out() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = options["tool"]["pytest"]["ini_options"]["addopts"]
    assert addopts[:2] == ["-m", "not perf and not vllm"] and "--strict-markers" in addopts
    code, ids = _collected("tests/perf")
    assert code == 5 and ids == []  # nothing of tests/perf in plain `pytest`: all are perf
    code, benchmarks = _collected("-m", "perf", "tests/perf")
    assert code == 0 and len(benchmarks) > 10


def test_the_real_vllm_tier_is_its_own() -> None:
    """tests/vllm needs a vLLM started for the session: never in plain `pytest` or in the
    benchmarks, all of it in `pytest -m vllm`."""
    code, ids = _collected("tests/vllm")
    assert code == 5 and ids == []
    code, ids = _collected("-m", "perf", "tests/vllm")
    assert code == 5 and ids == []
    code, tier = _collected("-m", "vllm", "tests/vllm")
    assert code == 0 and len(tier) >= 8
    assert all(test_id.startswith("tests/vllm/") for test_id in _collected("-m", "vllm")[1])
