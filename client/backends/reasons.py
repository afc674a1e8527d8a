"""Why a connection failed, in plain words: what httpx and the system say
("[Errno 104] Connection reset by peer", "ConnectError") becomes what a user can act on
("the connection to the server was cut"). Each phrase is also one of the window's
(client/ui/common/error_text.py PHRASES), so it is said in the window's language.

Pure code: text in, text out.
"""

from __future__ import annotations

import errno
import re
import socket

REFUSED = "nothing is listening on its port"
NO_CONNECTION = "no connection could be made"
CUT = "the connection to the server was cut"
HOST_UNKNOWN = "its host name was not found"
NO_ROUTE = "the network cannot reach it"
NO_ANSWER_IN_TIME = "no answer in time"
CLOSED_WITHOUT_ANSWER = "the server closed the connection without answering"
CLOSED_MID_ANSWER = "the server closed the connection before the answer was complete"
BROKEN_HTTP = "the server's answer broke the HTTP rules"

# The first pattern that matches anywhere in the text (case ignored) names the reason.
_REASONS: tuple[tuple[str, str], ...] = (
    (r"connection refused|errno 111\b|econnrefused", REFUSED),
    (r"all connection attempts failed|^connecterror$", NO_CONNECTION),
    (r"reset by peer|errno 104\b|econnreset|broken pipe|errno 32\b", CUT),
    (r"^(readerror|writeerror|closedresourceerror|brokenresourceerror)$", CUT),
    (r"name or service not known|nodename nor servname|getaddrinfo|name resolution", HOST_UNKNOWN),
    (r"errno -[235]\b|no address associated", HOST_UNKNOWN),
    (r"no route to host|network is unreachable|errno 113\b|errno 101\b", NO_ROUTE),
    (r"timed out|timeout", NO_ANSWER_IN_TIME),
    (r"disconnected without sending a response", CLOSED_WITHOUT_ANSWER),
    (r"without sending complete message body|incomplete chunked read", CLOSED_MID_ANSWER),
    (r"^remoteprotocolerror$|^localprotocolerror$", BROKEN_HTTP),
)
_COMPILED = tuple((re.compile(pattern, re.IGNORECASE), words) for pattern, words in _REASONS)
_BY_ERRNO = {
    errno.ECONNREFUSED: REFUSED,
    errno.ECONNRESET: CUT,
    errno.ECONNABORTED: CUT,
    errno.EPIPE: CUT,
    errno.EHOSTUNREACH: NO_ROUTE,
    errno.ENETUNREACH: NO_ROUTE,
    errno.ETIMEDOUT: NO_ANSWER_IN_TIME,
}
_ERRNO = re.compile(r"\[(?:Errno|WinError) -?\d+\]\s*")


def plain_reason(detail: str) -> str:
    """The reason in `detail` in plain words; an unknown one without its errno number."""
    text = " ".join(detail.split())
    for pattern, words in _COMPILED:
        if pattern.search(text):
            return words
    return without_errno(text)


def without_errno(text: str) -> str:
    """The system's words without their "[Errno 28] " number."""
    return _ERRNO.sub("", text)


def reason_of(error: BaseException) -> str:
    """Why `error` happened, in plain words: the system's own error behind httpx's
    (its errno, found along the chain of causes) when there is one, else its words."""
    link: BaseException | None = error
    seen: set[int] = set()
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, socket.gaierror):
            return HOST_UNKNOWN
        if isinstance(link, OSError) and link.errno in _BY_ERRNO:
            return _BY_ERRNO[link.errno]
        link = link.__cause__ or link.__context__
    return plain_reason(str(error) or type(error).__name__)


def os_words(error: OSError) -> str:
    """What the system said about a file or a socket, without its errno number or the
    path it names (the sentence around it names that): "no such file or directory"."""
    if error.errno in _BY_ERRNO:
        return _BY_ERRNO[error.errno]
    if error.errno == errno.EADDRINUSE:
        return "the port is in use"
    words = error.strerror or without_errno(str(error)) or type(error).__name__
    return words[:1].lower() + words[1:]
