"""The layering rules and the lint are checked, not hoped (napari-style)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_import_contracts_are_kept() -> None:
    lint_imports = shutil.which("lint-imports")
    assert lint_imports, "import-linter is not installed (pip install -e '.[test]')"
    result = _run(lint_imports, "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "client", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted() -> None:
    result = _run(sys.executable, "-m", "ruff", "format", "--check", "client", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "mypy", "client")
    assert result.returncode == 0, result.stdout + result.stderr
