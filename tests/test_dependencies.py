"""Every third-party package the code imports is declared in pyproject.toml: the
client's in its dependencies or an optional extra (`local`, `pdf` ...), the tests' in
those or the `test` extra. An undeclared one works here and breaks a fresh install."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from collections.abc import Mapping
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(with_test_extra: bool) -> set[str]:
    """The dependencies and the optional extras (`local`, `pdf` ...); the `test` extra
    counts only for the tests."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra, listed in project["optional-dependencies"].items():
        if extra != "test" or with_test_extra:
            requirements += listed
    return {_normalized(re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0]) for r in requirements}


def _local_names() -> set[str]:
    """Modules of this repository imported by path (packaging scripts and the like)."""
    return {p.stem for p in ROOT.rglob("*.py") if ".git" not in p.parts}


def _imported(folder: str) -> dict[str, str]:
    """Top-level third-party import names under folder -> one file importing it."""
    found: dict[str, str] = {}
    skip = {"client", "tests", "__future__", *sys.stdlib_module_names, *_local_names()}
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in skip:
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


@functools.cache
def _installed() -> Mapping[str, list[str]]:
    return packages_distributions()  # import name -> distributions (slow: once)


def _distributions(module: str) -> set[str]:
    known = _installed().get(module) or [module]  # not installed: its own name
    return {_normalized(name) for name in known}


@pytest.mark.parametrize(("folder", "with_test_extra"), [("client", False), ("tests", True)])
def test_every_imported_package_is_declared(folder: str, with_test_extra: bool) -> None:
    declared = _declared(with_test_extra)
    imported = _imported(folder)
    assert "httpx" in imported  # the scan sees imports at all
    missing = {
        module: where for module, where in imported.items() if not _distributions(module) & declared
    }
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
