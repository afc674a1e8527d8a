"""What both stream decoders share: line splitting with a size limit, JSON lines,
and turning a server's error body into a typed error with the server's own words.

Pure code: bytes in, strings / events / errors out. No I/O, no HTTP.
"""

from __future__ import annotations

import json
import re
from typing import Any

from client.backends.errors import (
    AuthenticationFailed,
    ImagesRefused,
    ModelLoading,
    ModelNotFound,
    ProtocolError,
    ServerError,
    TachyError,
)
from client.core.printable import visible

DEFAULT_LINE_LIMIT = 8 * 1024 * 1024  # 8 MiB: far above any real token line
SNIPPET_CHARS = 80


class LineBuffer:
    """Splits a byte stream into lines (LF or CRLF), whatever the chunking.

    Splitting happens on bytes, before decoding, so a multi-byte UTF-8 character
    split across reads is joined again (0x0A never occurs inside one). A line
    longer than ``limit`` raises ProtocolError as soon as it is seen, so memory
    never grows past the limit plus one read.
    """

    def __init__(self, limit: int = DEFAULT_LINE_LIMIT) -> None:
        self.limit = limit
        self._partial = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        if self._partial:
            end = data.find(b"\n")
            if end < 0:
                self._keep(data)
                return lines
            self._keep(data[:end])
            lines.append(_strip_cr(bytes(self._partial)))
            self._partial.clear()
            start = end + 1
        while (end := data.find(b"\n", start)) >= 0:
            if end - start > self.limit:
                raise _too_long(self.limit)
            lines.append(_strip_cr(data[start:end]))
            start = end + 1
        if start < len(data):
            self._keep(data[start:])
        return lines

    def close(self) -> list[bytes]:
        """The last line when the stream did not end with a newline."""
        rest, self._partial = bytes(self._partial), bytearray()
        return [_strip_cr(rest)] if rest else []

    def _keep(self, data: bytes) -> None:
        if len(self._partial) + len(data) > self.limit:
            self._partial.clear()
            raise _too_long(self.limit)
        self._partial += data


def _strip_cr(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


def _too_long(limit: int) -> ProtocolError:
    return ProtocolError(f"a line of the stream is longer than {limit // (1024 * 1024)} MiB")


def to_text(line: bytes) -> str:
    # A server bug must not cost the user the whole answer: bad bytes become U+FFFD.
    return line.decode("utf-8", errors="replace")


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def looks_like_html(text: str) -> bool:
    # No JSON or SSE line starts with "<"; every HTML or XML page does.
    return text.lstrip().startswith("<")


def redirect_refused(status: int, location: str) -> ProtocolError:
    """A 3xx answer. Tachy never follows one (httpx's default, kept on purpose): the
    request, and its API key, go only to the address the user gave."""
    where = f" to {visible(location)}" if location else ""
    return ProtocolError(
        f"the server redirected the request (HTTP {status}){where}, and Tachy does not "
        "follow redirects, so nothing was sent there. Use the final address as the URL"
    )


def html_refused() -> ProtocolError:
    return ProtocolError("the server sent a web page (HTML) instead of a model stream")


def parse_json_object(line: bytes) -> dict[str, Any]:
    """One JSON object from a line; anything else is a protocol error."""
    try:
        value = json.loads(line.decode("utf-8"))  # the hot path: strict, no detection
    except ValueError:
        value = _parse_damaged(line)
    return as_object(value, line)


def as_object(value: Any, line: bytes) -> dict[str, Any]:
    """The parsed value of ``line`` if it is a JSON object, made safe to print."""
    if type(value) is not dict:
        raise ProtocolError(f"a line of the stream is not a JSON object: {_snippet_of(line)!r}")
    if b"\\ud" in line or b"\\uD" in line:
        value = _without_lone_surrogates(value)
    return value


def _parse_damaged(line: bytes) -> Any:
    text = to_text(line)
    try:
        return json.loads(text)  # invalid UTF-8 in a string: keep the rest of the text
    except ValueError:
        pass
    if looks_like_html(text):
        raise html_refused() from None
    raise ProtocolError(f"a line of the stream is not JSON: {snippet(text)!r}") from None


def _snippet_of(line: bytes) -> str:
    return snippet(to_text(line[:400]))


def _without_lone_surrogates(value: Any) -> Any:
    # A lone \udXXX escape is valid JSON but not encodable text: printing it would
    # crash. Valid pairs were already joined by json.loads; only strays remain.
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {key: _without_lone_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    return value


def error_text(payload: Any) -> str | None:
    """The server's own error message from an error body or line, if there is one.

    Ollama: {"error": "..."}; OpenAI / vLLM / llama.cpp: {"error": {"message": ...}};
    FastAPI-based servers: {"detail": ...}.
    """
    if not isinstance(payload, dict):
        return None
    for key in ("error", "detail"):
        if key not in payload or payload[key] is None:
            continue
        value = payload[key]
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            message = value.get("message") or value.get("msg")
            return str(message) if message else snippet(json.dumps(value), 200)
        return snippet(json.dumps(value), 200)
    return None


# llama.cpp's server answers 503 "Loading model" to every request until its model is
# loaded (its port opens first); others word the same wait alike.
_MODEL_LOADING = re.compile(r"\bloading (the )?model\b|\bmodel is (still )?loading\b", re.I)
_MODEL_MISSING = re.compile(r"\bmodel\b.*\b(not found|does not exist|not exist)", re.I)
# How servers refuse an image for a model that cannot see: Ollama "this model is missing
# data required for image input", llama-server "image input is not supported - hint: ...
# mmproj", vLLM "... is not a multimodal model", others "does not support images".
_IMAGES_REFUSED = re.compile(
    r"image input|missing data required for image|not a multimodal model|"
    r"does not support (images?|vision|multimodal)|multimodal inputs? (is |are )?not supported",
    re.I,
)
_MODEL_NAME = re.compile(r"\bmodel\s+[\"'`]?([^\s\"'`]+)", re.I)


def error_from_message(status: int | None, message: str, model: str = "") -> ServerError:
    message = visible(message)  # a server's words, on one line, with nothing acting
    if _IMAGES_REFUSED.search(message):
        return ImagesRefused(model, message, status)
    if _MODEL_MISSING.search(message):
        named = _MODEL_NAME.search(message)
        return ModelNotFound(model or (named.group(1) if named else "?"), message, status)
    return ServerError(status, message)


def error_from_http(
    status: int, body: bytes, content_type: str = "", model: str = "", reason: str = ""
) -> TachyError:
    """A typed error for an HTTP 4xx/5xx answer, with the server's message, never its HTML."""
    text = to_text(body).strip()
    message: str | None = None
    if text.startswith(("{", "[")):
        try:
            message = error_text(json.loads(text))
        except ValueError:
            message = None
    if message is None:
        if "html" in content_type.lower() or looks_like_html(text):
            message = _html_title(text) or reason
        else:
            message = snippet(text.splitlines()[0], 200) if text else reason
    message = visible(message)
    if status == 503 and is_model_loading(message):
        return ModelLoading(message)
    if _IMAGES_REFUSED.search(message):
        return ImagesRefused(model, message, status)
    if status in (401, 403):
        return AuthenticationFailed(status, message)
    if status == 404 or status == 400:
        error = error_from_message(status, message, model)
        if isinstance(error, ModelNotFound) or status == 400:
            return error
        return ProtocolError(f"HTTP 404 ({message})")
    return ServerError(status, message)


def is_model_loading(message: str) -> bool:
    """The server's words say it is still loading its model ("Loading model")."""
    return _MODEL_LOADING.search(message) is not None


def _html_title(html: str) -> str | None:
    match = re.search(r"<title[^>]*>(.*?)</title>", html, re.I | re.S)
    if not match:
        return None
    title = re.sub(r"<[^>]+>|&[a-z#0-9]+;", " ", match.group(1))
    return snippet(title, 100) or None
