"""`tachy doctor` names each problem of a really broken machine and its fix."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from client.services.doctor.checks import (
    Status,
    data_folder_checks,
    database_checks,
    display_checks,
    keyring_checks,
)
from client.services.doctor.engine_checks import engine_checks
from client.store.conversations.history import HistoryStore
from client.store.db import MIGRATIONS, Database
from tests.memory_keyring import MemoryKeyring

ROOT = Path(__file__).resolve().parents[2]


def doctor(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "TACHY_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "client", "doctor", *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def line_of(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if f"  {name}:" in line]
    assert len(lines) == 1, output
    return lines[0]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_file_in_place_of_the_data_folder_fails_with_the_fix(data_dir: Path) -> None:
    data_dir.parent.mkdir(exist_ok=True)
    data_dir.write_text("not a folder")
    done = doctor(data_dir, "--no-engine", QT_QPA_PLATFORM="offscreen")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    line = line_of(done.stdout, "data folder")
    assert line.startswith("FAIL") and "is a file, not a folder" in line
    assert "Fix: move the file" in line
    assert line_of(done.stdout, "database").startswith("info")
    assert done.stdout.rstrip().endswith("check(s) failed.")


def test_a_damaged_history_fails_and_says_how_to_recover(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "tachy.sqlite3").write_bytes(b"not sqlite at all " * 300)
    [check] = list(database_checks())
    assert check.status is Status.FAIL
    assert "is damaged (file is not a database)" in check.detail
    assert "start tachy" in check.fix and "recovers" in check.fix
    assert (data_dir / "tachy.sqlite3").read_bytes().startswith(b"not sqlite")  # untouched


def test_a_damaged_page_fails_the_integrity_check(data_dir: Path) -> None:
    with Database() as db:
        history = HistoryStore(db)
        for n in range(30):
            chat = history.create_conversation(f"c{n}")
            history.add_message(chat.id, "user", "word " * 500)
        pages = db.query("PRAGMA page_count")[0][0]
    with (data_dir / "tachy.sqlite3").open("r+b") as file:
        file.seek(4096 * (pages // 2))
        file.write(b"\x5a" * 4096 * 3)
    checks = list(database_checks())
    assert checks[0].status is Status.FAIL, checks
    assert "is damaged" in checks[0].detail


def test_a_sound_history_reports_schema_and_size(data_dir: Path) -> None:
    with Database() as db:
        HistoryStore(db).create_conversation("fine")
    checks = {c.name: c for c in database_checks()}
    assert checks["database"].status is Status.OK
    latest = len(MIGRATIONS)  # the schema this build writes
    assert f"integrity ok, schema {latest} of {latest}" in checks["database"].detail
    assert checks["database size"].status is Status.OK
    assert checks["database size"].detail.endswith(" MB")


def test_a_newer_schema_fails_with_update_tachy(data_dir: Path) -> None:
    with Database():
        pass
    with sqlite3.connect(data_dir / "tachy.sqlite3") as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1:d}")
    conn.close()
    checks = {c.name: c for c in database_checks()}
    schema = checks["database schema"]
    assert schema.status is Status.FAIL and f"version {len(MIGRATIONS) + 1}" in schema.detail
    assert "update Tachy" in schema.fix


def test_the_data_folder_check_passes_on_a_writable_folder(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    [check] = list(data_folder_checks())
    assert check.status is Status.OK and "(writable)" in check.detail


def test_the_keyring_fail_backend_fails_and_a_working_one_passes(
    memory_keyring: MemoryKeyring,
) -> None:
    [check] = list(keyring_checks())
    assert check.status is Status.OK and "MemoryKeyring" in check.detail
    keyring.set_keyring(FailKeyring())
    [check] = list(keyring_checks())
    assert check.status is Status.FAIL and "keyring.backends.fail.Keyring" in check.detail
    assert "session only" in check.fix
    assert memory_keyring.passwords == {}  # the probe never writes


def test_a_missing_qt_platform_plugin_fails_and_offscreen_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "nosuchplugin")
    [check] = list(display_checks())
    assert check.status is Status.FAIL and "nosuchplugin" in check.detail
    assert "apt install" in check.fix
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    [check] = list(display_checks())
    assert check.status is Status.OK and "'offscreen'" in check.detail


def test_no_display_at_all_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    [check] = list(display_checks())
    assert check.status is Status.FAIL and "no display" in check.detail


@pytest.mark.engine
def test_the_local_engine_starts_and_answers() -> None:
    checks = {c.name: c for c in engine_checks(start=True)}
    assert [c.status for c in checks.values()] == [Status.OK] * 4, checks
    assert "characters in" in checks["engine answer"].detail


MEMORY_KEYRING = "tests.memory_keyring.MemoryKeyring"  # a working keyring for the child


@pytest.mark.engine
def test_exit_code_zero_when_every_check_passes(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    done = doctor(data_dir, QT_QPA_PLATFORM="offscreen", PYTHON_KEYRING_BACKEND=MEMORY_KEYRING)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert done.stdout.rstrip().endswith("All checks passed.")


def test_one_failing_check_makes_the_exit_code_one(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    healthy = doctor(
        data_dir, "--no-engine", QT_QPA_PLATFORM="offscreen", PYTHON_KEYRING_BACKEND=MEMORY_KEYRING
    )
    failing = doctor(
        data_dir,
        "--no-engine",
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    assert line_of(healthy.stdout, "keyring").startswith("ok")
    assert line_of(failing.stdout, "keyring").startswith("FAIL")
    failed = [line for line in failing.stdout.splitlines() if line.startswith("FAIL")]
    assert failing.returncode == 1 and f"{len(failed)} check(s) failed." in failing.stdout
    # Every line is one check: a status word, a name, a colon.
    for line in failing.stdout.splitlines()[:-1]:
        assert line.split()[0] in ("ok", "FAIL", "info") and ":" in line
