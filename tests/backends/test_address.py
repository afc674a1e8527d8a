"""A server address is parsed and checked in one place (client/backends/address.py)."""

from __future__ import annotations

import pytest

from client.backends import InvalidServerAddress, backend_for, detect, server_url
from client.backends.address import normalize_url

BAD = {
    "http://[::1:bad": "invalid port",
    "http://h:abc": "invalid port",
    "ftp://x": "'ftp://' is not supported",
    "file:///etc/passwd": "'file://' is not supported",
    "http://": "no host name",
    "http://h:99999": "port 99999 is out of range",
    "not a url": "contains a space",
    "http://user:secret@h": "user name or password",
}


@pytest.mark.parametrize(("text", "reason"), BAD.items())
def test_a_bad_address_gets_one_sentence_saying_why(text: str, reason: str) -> None:
    with pytest.raises(InvalidServerAddress) as raised:
        server_url(text)
    sentence = raised.value.user_message
    shown = text.replace("user:secret@", "")  # a password is never echoed
    assert sentence.startswith(f"'{shown}' is not a server address: ") and reason in sentence
    assert sentence.endswith(".") and "\n" not in sentence and "secret" not in sentence
    assert raised.value.retryable is False


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("  localhost:8000/ ", "http://localhost:8000"),
        ("https://example.org/v1/", "https://example.org/v1"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_a_good_address_is_normalized(text: str, url: str) -> None:
    assert server_url(text) == url == normalize_url(text)


def test_normalize_never_raises_and_keys_like_server_url() -> None:
    assert normalize_url("http://[::1:bad/") == "http://[::1:bad"
    assert normalize_url("ftp://x/") == "ftp://x"


@pytest.mark.parametrize("api", ["ollama", "openai"])
def test_every_backend_checks_its_address(api: str) -> None:
    with pytest.raises(InvalidServerAddress, match="invalid port"):
        backend_for("http://[::1:bad", api)


async def test_detect_checks_the_address_before_sending() -> None:
    with pytest.raises(InvalidServerAddress, match="not supported"):
        await detect("ftp://x")
