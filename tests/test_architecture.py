"""The layering rules and the lint are checked, not hoped (napari-style)."""

from __future__ import annotations

import ast
import getpass
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_import_contracts_are_kept() -> None:
    lint_imports = shutil.which("lint-imports")
    assert lint_imports, "import-linter is not installed (pip install -e '.[test]')"
    result = _run(lint_imports, "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_layer_rules_are_among_the_contracts() -> None:
    """lint-imports passing means little if a rule was dropped from pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    forbidden = {
        (source, module)
        for c in contracts
        if c["type"] == "forbidden"
        for source in c["source_modules"]
        for module in c["forbidden_modules"]
    }
    assert {("client.ui", "client.store"), ("client.ui", "client.backends")} <= forbidden
    assert {("client.ui", "httpx"), ("client.ui", "sqlite3"), ("client.ui", "keyring")} <= forbidden
    others = ["client.backends", "client.store", "client.services", "client.ui", "client.cli"]
    assert {("client.core", other) for other in [*others, "client.lab"]} <= forbidden
    http_free = ["client.core", "client.services", "client.store", "client.ui"]
    assert {(layer, "httpx") for layer in http_free} <= forbidden
    assert any(c["type"] == "acyclic_siblings" and c["ancestors"] == ["client"] for c in contracts)


def test_ruff_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "client", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted() -> None:
    result = _run(sys.executable, "-m", "ruff", "format", "--check", "client", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


# mypy's incremental cache, kept between runs and clones (it is keyed by each file's hash,
# so a fresh clone is checked as a whole): a run without it took 30-50 s of CPU.
MYPY_CACHE = Path(tempfile.gettempdir()) / f"tachy-mypy-cache-{getpass.getuser()}"


def test_mypy_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "mypy", "--cache-dir", str(MYPY_CACHE), "client")
    assert result.returncode == 0, result.stdout + result.stderr


def _packages() -> list[Path]:
    return sorted((ROOT / "client").rglob("__init__.py"))


def test_each_package_says_what_lives_there_and_what_it_may_import() -> None:
    assert len(_packages()) >= 9
    for init in _packages():
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        lines = doc.splitlines()
        where = init.relative_to(ROOT)
        assert len(lines) >= 2 and lines[0].strip(), f"{where}: what lives here (line 1)"
        assert lines[1].startswith("May import: "), f"{where}: what it may import (line 2)"


# A path on some machine, not in the repository (notes, home folders, /tmp files).
OUTSIDE = re.compile(r"(?<![\w.])/(?:work|home|root|Users|tmp|mnt)/")


def test_comments_point_only_inside_the_repo() -> None:
    pointing_out = []
    for folder in ("client", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line):
                    pointing_out.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not pointing_out, "\n".join(pointing_out)


def _modules(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / "client" / folder).rglob("*.py"))]


# (client/backends joins when its server kinds have their folders.)
SMALL_FOLDERS = ("ui", "services", "cli", "lab", "store", "core")


def test_each_area_of_the_window_and_the_services_is_small() -> None:
    """A folder per area, each small enough to find a feature by its name."""
    too_big = []
    for init in _packages():
        folder = init.parent
        parts = folder.relative_to(ROOT).parts
        if parts == ("client",) or parts[1] in SMALL_FOLDERS:
            modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > 15:
                too_big.append(f"{folder.relative_to(ROOT)}: {len(modules)} modules")
    assert not too_big, too_big


def test_the_window_never_looks_up_attributes_by_name() -> None:
    """getattr/hasattr in client/ui hid which parts exist and in what order they are
    wired; the seams are typed instead."""
    found = []
    for path in _modules("ui"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in ("getattr", "hasattr"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}")
    assert not found, "\n".join(found)


def _bare_any(annotation: ast.expr | None) -> bool:
    """`Any` or `Any | None` (dict[str, Any] and other JSON containers may stay)."""
    if isinstance(annotation, ast.Name):
        return annotation.id == "Any"
    if isinstance(annotation, ast.BinOp):
        return _bare_any(annotation.left) or _bare_any(annotation.right)
    return False


def test_the_seams_of_the_window_and_the_services_are_typed() -> None:
    found = []
    for path in _modules("ui", "services"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                found += [f"{where}: {a.arg}" for a in arguments if _bare_any(a.annotation)]
                if _bare_any(node.returns):
                    found.append(f"{where}: {node.name}'s return")
            elif isinstance(node, ast.AnnAssign) and _bare_any(node.annotation):
                found.append(f"{where}: {ast.unparse(node.target)}")
    assert not found, "\n".join(found)


def test_only_services_change_a_chat_session() -> None:
    """The window asks services; it never sets what a session is or does."""
    setting = re.compile(r"\bsession\.\w+\s*=[^=]")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _modules("ui", "cli")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if setting.search(line)
    ]
    assert not found, "\n".join(found)
