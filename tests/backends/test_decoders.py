from __future__ import annotations

import pytest

from client.backends.decoders import LineBuffer, error_from_http, error_text
from client.backends.errors import (
    AuthenticationFailed,
    ModelNotFound,
    ProtocolError,
    ServerError,
)


def test_line_buffer_joins_pieces_and_strips_cr() -> None:
    lines = LineBuffer()
    assert lines.feed(b"ab") == []
    assert lines.feed(b"c\r") == []
    assert lines.feed(b"\nd\ne") == [b"abc", b"d"]
    assert lines.close() == [b"e"]
    assert lines.close() == []


def test_line_buffer_limit_counts_the_partial_line() -> None:
    lines = LineBuffer(limit=10)
    lines.feed(b"12345")
    with pytest.raises(ProtocolError):
        lines.feed(b"678901")


def test_line_buffer_line_exactly_at_the_limit_is_fine() -> None:
    assert LineBuffer(limit=4).feed(b"1234\n") == [b"1234"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"error": "plain"}, "plain"),
        ({"error": {"message": "nested", "type": "x"}}, "nested"),
        ({"detail": "fastapi"}, "fastapi"),
        ({"detail": [{"msg": "field required"}]}, '[{"msg": "field required"}]'),
        ({"ok": True}, None),
        ([1], None),
    ],
)
def test_error_text(payload: object, message: str | None) -> None:
    assert error_text(payload) == message


def test_http_error_keeps_the_servers_message() -> None:
    error = error_from_http(500, b'{"error": "CUDA out of memory"}', "application/json")
    assert isinstance(error, ServerError) and error.status == 500
    assert "CUDA out of memory" in str(error) and error.retryable


def test_http_404_model_not_found_ollama_and_vllm() -> None:
    ollama = error_from_http(404, b'{"error":"model \\"qwen\\" not found, try pulling it first"}')
    assert isinstance(ollama, ModelNotFound) and "qwen" in str(ollama)
    body = b'{"error":{"message":"The model `qwen` does not exist.","code":404}}'
    vllm = error_from_http(404, body, model="qwen")
    assert isinstance(vllm, ModelNotFound) and vllm.model == "qwen" and not vllm.retryable


def test_http_404_without_model_is_probably_the_wrong_url() -> None:
    error = error_from_http(404, b"Not Found", "text/plain")
    assert isinstance(error, ProtocolError) and "right URL" in str(error)


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failures(status: int) -> None:
    body = b'{"error": {"message": "Incorrect API key provided"}}'
    error = error_from_http(status, body, "application/json")
    assert isinstance(error, AuthenticationFailed) and "Incorrect API key" in str(error)


def test_html_error_page_gives_a_short_clean_message() -> None:
    page = (
        b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title>"
        b"<script>alert(1)</script></head><body>" + b"x" * 5000 + b"</body></html>"
    )
    error = error_from_http(502, page, "text/html; charset=utf-8")
    text = str(error)
    assert "502 Bad Gateway" in text
    assert "<" not in text and "script" not in text and len(text) < 200


def test_html_without_title_uses_the_reason_phrase() -> None:
    error = error_from_http(
        503, b"<html><body>down</body></html>", "", reason="Service Unavailable"
    )
    assert "Service Unavailable" in str(error) and "<" not in str(error)


def test_empty_body_uses_reason() -> None:
    assert "Too Many Requests" in str(error_from_http(429, b"", reason="Too Many Requests"))
