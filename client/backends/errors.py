"""Typed errors, each with a sentence a user can act on.

Transport exceptions are mapped to these with ``__cause__`` kept. A failure after
text began carries the partial text on the Failed event, not on the error.
"""

from __future__ import annotations

from client.backends.reasons import plain_reason
from client.core.printable import visible_lines


class TachyError(Exception):
    """Base of every error Tachy shows. str(error) is the user-facing sentence."""

    retryable = True

    def __init__(self, message: str) -> None:
        # Sentences quote servers (their errors, model names): nothing in them may act
        # on a terminal or the window (escapes, right-to-left overrides): spelled out.
        message = visible_lines(message)
        super().__init__(message)
        self.user_message = message

    def _reword(self, message: str) -> None:
        """A subclass's own sentence in place of its base's."""
        self.user_message = visible_lines(message)
        self.args = (self.user_message,)


class BackendUnreachable(TachyError):
    def __init__(self, url: str, detail: str = "") -> None:
        why = f" now ({plain_reason(detail)})" if detail else ""
        super().__init__(
            f"Can't reach the server at {url}{why}. Check that it is running, "
            "or choose another server."
        )
        self.url = url


class FirstByteTimeout(TachyError):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"The server sent nothing for {seconds:g} s. It may be loading a large model "
            "or overloaded: keep waiting, retry, or choose another server."
        )
        self.seconds = seconds


class StreamStalled(TachyError):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"The answer stopped arriving: no token for {seconds:g} s. "
            "The text so far is kept; continue or retry."
        )
        self.seconds = seconds


class StreamInterrupted(TachyError):
    def __init__(self, detail: str = "the connection was closed") -> None:
        super().__init__(
            f"The answer was interrupted: {plain_reason(detail)}. "
            "The text so far is kept; continue or retry."
        )


class ServerError(TachyError):
    def __init__(self, status: int | None, server_message: str) -> None:
        where = f" (HTTP {status})" if status else " during the answer"
        said = server_said(server_message)
        super().__init__(
            f"The server reported an error{where}. {said}"
            if said
            else f"The server reported an error{where} and gave no details."
        )
        self.status = status
        self.server_message = server_message
        self.retryable = status is None or status >= 500 or status == 429


class ModelLoading(ServerError):
    """The server is up but still loading its model: llama.cpp's server answers every
    request 503 "Loading model" until it is ready. A wait, not a wrong server."""

    def __init__(
        self, server_message: str = "Loading model", status: int = 503, waited_s: float = 0.0
    ) -> None:
        super().__init__(status, server_message)
        self.waited_s = waited_s
        self._reword(
            f"The server was still loading its model after {round(waited_s, 1):g} s. Keep waiting, "
            "or retry in a moment."
            if waited_s
            else "The server is still loading its model. Retry in a moment."
        )


class ModelNotFound(ServerError):
    def __init__(self, model: str, server_message: str = "", status: int | None = 404) -> None:
        super().__init__(status, server_message or f"model '{model}' not found")
        said = server_said(server_message)
        self._reword(
            f"The server has no model named '{model}'. Pick one from the model list."
            + (f" {said}" if said else "")
        )
        self.model = model
        self.retryable = False


class ImagesRefused(ServerError):
    """A model that cannot see was sent an image; the server's refusal, in plain words."""

    def __init__(self, model: str, server_message: str, status: int | None = 400) -> None:
        super().__init__(status, server_message)
        said = server_said(server_message)
        named = f" ({model})" if model else ""
        self._reword(
            f"This model{named} cannot see images, so the server refused the message. Your "
            "question is kept: remove the image, or choose a model that can see."
            + (f" {said}" if said else "")
        )
        self.model = model
        self.retryable = False


class AuthenticationFailed(ServerError):
    def __init__(self, status: int, server_message: str) -> None:
        super().__init__(status, server_message)
        said = server_said(server_message)
        self._reword(
            f"The server refused the API key (HTTP {status}). Check the key saved for this "
            "server." + (f" {said}" if said else "")
        )
        self.retryable = False


def server_said(message: str) -> str:
    """'The server said: “...”.': the server's own words, quoted as its, on one line
    with single spaces; "" when it said nothing."""
    words = " ".join(message.split())
    if words.endswith(".") and not words.endswith(".."):
        words = words[:-1]
    return f"The server said: “{words}”." if words else ""


class ProtocolError(TachyError):
    def __init__(self, detail: str) -> None:
        super().__init__(
            f"The server's reply could not be read: {detail}. "
            "Is this the right URL and API type for this server?"
        )
        self.detail = detail


class InvalidServerAddress(TachyError):
    """What the user typed is not an http(s) server address (client.backends.address)."""

    retryable = False

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"'{text.strip()}' is not a server address: {reason}.")
        self.text = text
        self.reason = reason
