"""Every error kind's sentence is recognised by the window, and in Chinese it is said in
Chinese with what the server said kept as it came."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from client.services.errors import (
    AuthenticationFailed,
    BackendUnreachable,
    FirstByteTimeout,
    InvalidServerAddress,
    ModelNotFound,
    ProtocolError,
    ServerError,
    StreamInterrupted,
    StreamStalled,
    TachyError,
)
from client.ui.error_text import error_text, is_known
from client.ui.translations import install_translations

ERRORS: list[tuple[TachyError, str]] = [  # the error, a part that must stay as it came
    (BackendUnreachable("http://127.0.0.1:11434", "connection refused"), "127.0.0.1:11434"),
    (BackendUnreachable("http://127.0.0.1:8080"), "127.0.0.1:8080"),
    (FirstByteTimeout(30.0), "30"),
    (StreamStalled(0.3), "0.3"),
    (StreamInterrupted(), "the connection was closed"),
    (ServerError(500, "out of memory"), "out of memory"),
    (ServerError(None, "runner terminated"), "runner terminated"),
    (ModelNotFound("llama3:8b"), "llama3:8b"),
    (ModelNotFound("llama3:8b", "model not found."), "model not found"),
    (AuthenticationFailed(401, "invalid key"), "invalid key"),
    (ProtocolError("a line of the stream is not JSON"), "not JSON"),
    (InvalidServerAddress("ftp://x", "only http and https"), "ftp://x"),
]


@pytest.mark.parametrize(("error", "kept"), ERRORS, ids=lambda e: type(e).__name__)
def test_each_error_sentence_is_recognised(qapp: Any, error: TachyError, kept: str) -> None:
    assert is_known(error.user_message), error.user_message
    assert error_text(error.user_message) == error.user_message  # English: unchanged


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translators = install_translations(qapp, "zh_CN")
    yield
    for translator in translators:
        qapp.removeTranslator(translator)
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))


@pytest.mark.parametrize(("error", "kept"), ERRORS, ids=lambda e: type(e).__name__)
def test_in_chinese_the_sentence_is_chinese(chinese: None, error: TachyError, kept: str) -> None:
    shown = error_text(error.user_message)
    assert shown != error.user_message and kept in shown
    assert any("\u4e00" <= ch <= "\u9fff" for ch in shown)


def test_an_unknown_sentence_is_shown_as_it_is(chinese: None) -> None:
    assert error_text("Something new happened.") == "Something new happened."
