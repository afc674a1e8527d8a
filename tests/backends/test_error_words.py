"""Failure sentences are plain words: no errno numbers or exception class names, single
spaces, a capital letter first, and the server's own message quoted as the server's."""

from __future__ import annotations

import errno

import httpx
import pytest

from client.backends.decoders import error_from_http, error_from_message
from client.backends.detect import detect
from client.backends.errors import (
    AuthenticationFailed,
    BackendUnreachable,
    ModelNotFound,
    ServerError,
    StreamInterrupted,
    TachyError,
)
from client.backends.reasons import CUT, REFUSED, os_words, plain_reason, reason_of
from tests.backends.test_live_http import closed_port

URL = "http://127.0.0.1:8080"


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("[Errno 104] Connection reset by peer", "the connection to the server was cut"),
        ("[Errno 111] Connection refused", "nothing is listening on its port"),
        ("[Errno 111] Connect call failed ('127.0.0.1', 9)", "nothing is listening on its port"),
        ("[Errno -2] Name or service not known", "its host name was not found"),
        ("[Errno 113] No route to host", "the network cannot reach it"),
        ("[Errno 110] Connection timed out", "no answer in time"),
        ("[Errno 32] Broken pipe", "the connection to the server was cut"),
        ("ReadError", "the connection to the server was cut"),
        ("ReadTimeout", "no answer in time"),
        ("Server disconnected without sending a response.", "the server closed the connection "
         "without answering"),
        ("peer closed connection without sending complete message body (incomplete chunked "
         "read)", "the server closed the connection before the answer was complete"),
        ("[Errno 5] Input/output error", "Input/output error"),
    ],
)  # fmt: skip
def test_system_words_become_plain_words(said: str, plain: str) -> None:
    assert plain_reason(said) == plain
    assert plain_reason(plain) == plain  # plain words stay as they are


def test_the_errno_behind_httpx_words_names_the_reason() -> None:
    refused = ConnectionRefusedError(errno.ECONNREFUSED, "Connect call failed")
    try:
        try:
            raise refused
        except OSError as inner:
            raise httpx.ConnectError("All connection attempts failed") from inner
    except httpx.ConnectError as outer:
        assert reason_of(outer) == REFUSED
    assert reason_of(httpx.ReadError("")) == CUT


def test_a_cut_connection_is_said_without_its_errno() -> None:
    sentence = str(StreamInterrupted("[Errno 104] Connection reset by peer"))
    assert sentence == (
        "The answer was interrupted: the connection to the server was cut. "
        "The text so far is kept; continue or retry."
    )


async def test_a_closed_port_says_it_cannot_be_reached_now() -> None:
    port = closed_port()
    with pytest.raises(BackendUnreachable) as caught:
        await detect(f"http://127.0.0.1:{port}")
    assert str(caught.value) == (
        f"Can't reach the server at http://127.0.0.1:{port} now (nothing is listening on its "
        "port). Check that it is running, or choose another server."
    )


def test_the_servers_words_are_quoted_as_the_servers() -> None:
    busy = "server busy, please try again.  maximum pending requests exceeded"
    error = error_from_http(503, f'{{"error": "{busy}"}}'.encode())
    assert str(error) == (
        "The server reported an error (HTTP 503). The server said: “server busy, please try "
        "again. maximum pending requests exceeded”."
    )
    assert isinstance(error, ServerError) and error.server_message == busy  # kept as it came
    mid = error_from_message(None, "llama runner process has terminated")
    assert str(mid) == (
        "The server reported an error during the answer. The server said: “llama runner "
        "process has terminated”."
    )
    assert str(error_from_http(502, b"")) == (
        "The server reported an error (HTTP 502) and gave no details."
    )


def test_missing_models_and_refused_keys_quote_the_server_last() -> None:
    missing = ModelNotFound("llama3", 'model "llama3" not found, try pulling it first.')
    assert str(missing) == (
        "The server has no model named 'llama3'. Pick one from the model list. "
        'The server said: “model "llama3" not found, try pulling it first”.'
    )
    refused = AuthenticationFailed(401, "invalid key")
    assert str(refused) == (
        "The server refused the API key (HTTP 401). Check the key saved for this server. "
        "The server said: “invalid key”."
    )


@pytest.mark.parametrize(
    "error",
    [
        BackendUnreachable(URL, "[Errno 111] Connection refused"),
        BackendUnreachable(URL, "ConnectError"),
        StreamInterrupted("ReadError"),
        StreamInterrupted("[Errno 104] Connection reset by peer"),
        ServerError(500, "  out   of\\nmemory  "),
        ServerError(None, ""),
        error_from_http(503, b"<html><title>503  Service   Unavailable</title></html>"),
        error_from_http(404, b'{"error": "model \\"x\\" not found"}', model="x"),
    ],
    ids=repr,
)
def test_every_sentence_reads_as_plain_words(error: TachyError) -> None:
    sentence = str(error)
    assert sentence[0].isupper(), sentence
    assert "  " not in sentence, sentence
    assert "Errno" not in sentence and "Error" not in sentence.replace("error", ""), sentence


def test_the_systems_words_about_files_and_ports_lose_their_numbers() -> None:
    assert os_words(FileNotFoundError(2, "No such file or directory", "x")) == (
        "no such file or directory"
    )
    assert os_words(OSError(errno.EADDRINUSE, "Address already in use")) == "the port is in use"
    assert os_words(OSError("[Errno 5] Input/output error")) == "input/output error"
