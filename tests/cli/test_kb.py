from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli import main


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kyoto.md").write_text("# Kyoto\n\nWe stayed at the Hotel Granvia.\n")
    (folder / "上海.txt").write_text("上海的小笼包\n", encoding="utf-16")
    (folder / "blob.txt").write_bytes(b"\x00" * 64)
    return folder


def test_add_list_search_remove(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kb", "add", str(notes)]) == 0
    assert "indexed 2 files (2 passages), 1 binary skipped" in capsys.readouterr().err
    assert main(["kb", "list"]) == 0
    assert capsys.readouterr().out == f"{notes}\t2 files, 2 passages, 1 skipped\n"

    assert main(["kb", "search", "Which hotel in Kyoto?", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["path"] == str(notes / "kyoto.md")
    assert (row["line_start"], row["line_end"]) == (1, 3)
    assert row["score"] > 0 and "Granvia" in row["text"]

    assert main(["kb", "search", "小笼包", "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"[1] {notes / '上海.txt'}:1 ") and "上海的小笼包" in out

    assert main(["kb", "remove", str(notes)]) == 0
    assert "2 files left the index" in capsys.readouterr().err
    assert main(["kb", "search", "Kyoto", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == []


def test_unknown_paths_get_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kb", "add", str(tmp_path / "nope")]) == 1
    assert f"{tmp_path / 'nope'} does not exist" in capsys.readouterr().err
    assert main(["kb", "remove", str(tmp_path / "nope")]) == 1
    assert "is not in the knowledge base" in capsys.readouterr().err


def test_a_damaged_index_is_one_sentence(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir.mkdir()
    (data_dir / "knowledge.sqlite3").write_bytes(b"garbage" * 1000)
    assert main(["kb", "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tachy kb: The knowledge index") and "damaged" in err
    assert "Traceback" not in err
