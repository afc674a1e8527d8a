"""Every test in this folder is a benchmark: the perf mark is added here, so a new file
cannot slip into the default run (`pytest` deselects perf; `pytest -m perf` runs them)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.perf)
