"""The error kinds the window tells apart, from the layers below it (client.ui may
not import client.backends or client.store, so it reads them from here).
"""

from __future__ import annotations

from client.backends.errors import (
    AuthenticationFailed,
    BackendUnreachable,
    FirstByteTimeout,
    InvalidServerAddress,
    ModelLoading,
    ModelNotFound,
    ProtocolError,
    ServerError,
    StreamInterrupted,
    StreamStalled,
    TachyError,
)
from client.store.secrets import SecretsUnavailable

__all__ = [
    "AuthenticationFailed",
    "BackendUnreachable",
    "FirstByteTimeout",
    "InvalidServerAddress",
    "ModelLoading",
    "ModelNotFound",
    "ProtocolError",
    "SecretsUnavailable",
    "ServerError",
    "StreamInterrupted",
    "StreamStalled",
    "TachyError",
    "user_message",
]


def user_message(error: BaseException) -> str:
    """The error's sentence for people: a TachyError's own, else its text."""
    return error.user_message if isinstance(error, TachyError) else str(error)
