"""The wheel carries resources/ as client/resources (setup.py), so a pip user's app finds
its icons, desktop entry, stylesheet and translations without the source checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.tachy.Tachy"


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    # From a copy: setuptools' build/ keeps stale files and would write into the tree.
    source = tmp_path_factory.mktemp("source") / "tachy"
    skip = shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".*_cache")
    shutil.copytree(ROOT, source, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(out)]
    subprocess.run(command, check=True, capture_output=True, cwd=out)
    (wheel,) = out.glob("tachy-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_ships_the_desktop_files_and_icons(wheel_names: set[str]) -> None:
    for name in (f"{APP_ID}.desktop", f"{APP_ID}.metainfo.xml", "style.qss"):
        assert f"client/resources/{name}" in wheel_names
    assert f"client/resources/icons/hicolor/512x512/apps/{APP_ID}.png" in wheel_names
    assert f"client/resources/icons/hicolor/scalable/apps/{APP_ID}.svg" in wheel_names


def test_the_wheel_ships_the_compiled_translations(wheel_names: set[str]) -> None:
    for catalogue in ("tachy", "pyqtgraph"):
        assert f"client/resources/translations/{catalogue}_zh_CN.qm" in wheel_names


def test_the_wheel_leaves_out_sources_and_screenshots(wheel_names: set[str]) -> None:
    assert not [n for n in wheel_names if n.endswith(".ts") or "screenshot" in n]
    assert "client/ui/shell/app.py" in wheel_names and "client/py.typed" in wheel_names
