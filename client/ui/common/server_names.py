"""A server's name as the window says it: the detected servers' names translated."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

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
