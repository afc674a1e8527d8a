"""A server's name as the window says it: the detected servers' names translated, and
the kinds of server by the names users know them by (the Server tab and the Waterfall
say the same words: issue 39)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from client.services.servers.servers import ServerChoice

# client.services.servers.servers names the servers it detects "<kind> on this computer (<port>)".
DETECTED_NAME = re.compile(r"(Ollama|OpenAI-compatible server) on this computer \((\d+)\)")


def shown_name(choice: ServerChoice) -> str:
    detected = DETECTED_NAME.fullmatch(choice.name)
    if detected is None:
        return QCoreApplication.translate("ServerBar", choice.name)
    if detected[1] == "Ollama":
        text = QCoreApplication.translate("ServerBar", "Ollama on this computer ({port})")
    else:
        text = QCoreApplication.translate(
            "ServerBar", "OpenAI-compatible server on this computer ({port})"
        )
    return text.format(port=detected[2])


# The services' names of the kinds ("vllm", "llamacpp", "ollama"), in words; the
# translation context is the Server tab's, where they were first said.
SERVER_NAMES = {
    "vllm": "vLLM",
    "llamacpp": QT_TRANSLATE_NOOP("ServerView", "llama.cpp server"),
    "ollama": "Ollama",
}


def server_kind_name(kind: str | None, unknown: str = "") -> str:
    """The kind's name in the window's language; `unknown` (else the kind as given)
    when it has none."""
    known = SERVER_NAMES.get(kind or "")
    if known is None:
        return unknown or (kind or "")
    return QCoreApplication.translate("ServerView", known)
