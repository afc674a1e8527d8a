"""Where the data lives, named before the window's first paint."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from client.services.storage.data_folder import instance_name, window_state_file


@pytest.fixture
def default_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "share" / "tachy"
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(folder))
    return folder


def test_one_socket_name_per_data_folder(default_folder: Path, monkeypatch) -> None:
    monkeypatch.delenv("TACHY_DATA_DIR", raising=False)
    default = instance_name()
    monkeypatch.setenv("TACHY_DATA_DIR", str(default_folder))  # the default, named
    assert instance_name() == default
    monkeypatch.setenv("TACHY_DATA_DIR", str(default_folder.parent / "other"))
    other = instance_name()
    assert other != default
    default_folder.parent.mkdir(parents=True)
    monkeypatch.chdir(default_folder.parent)
    monkeypatch.setenv("TACHY_DATA_DIR", "other")  # relative: the same folder
    assert instance_name() == other
    monkeypatch.delenv("TACHY_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(default_folder.parent / "elsewhere"))
    assert instance_name() not in (default, other)  # another default folder


def test_a_usual_start_names_its_socket_without_platformdirs(monkeypatch) -> None:
    """platformdirs takes 4 ms to import: the window's first paint does not wait for it."""
    monkeypatch.delenv("TACHY_DATA_DIR", raising=False)
    monkeypatch.delitem(sys.modules, "platformdirs")
    assert instance_name().startswith("tachy-")
    assert window_state_file() is None  # the platform's place (QSettings)
    assert "platformdirs" not in sys.modules
