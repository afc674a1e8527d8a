"""What the welcome panel of a new conversation says: the servers found on this
computer (with how many models each has), whether the local engine is installed, and
the command that installs it when it is not.

Qt-free facts; client/ui/servers/welcome.py words them in the window's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from client.core.printable import visible


@dataclass(frozen=True, slots=True)
class FoundServer:
    kind: str  # "Ollama" or "OpenAI-compatible" (vLLM, llama.cpp, LM Studio)
    port: int
    models: int


@dataclass(frozen=True, slots=True)
class LocalEngineFacts:
    installed: bool
    install_command: str


async def found_servers(
    ports: tuple[int, ...] | None = None, budget_s: float = 0.3
) -> list[FoundServer]:
    """The LLM servers answering on this computer's usual ports (or `ports`)."""
    from client.backends.detect import USUAL_PORTS, discover_local_servers
    from client.backends.kinds.registry import kind_for_api

    found = await discover_local_servers(ports or USUAL_PORTS, budget_s=budget_s)
    return [
        FoundServer(
            server.name or kind_for_api(server.api).display_name,
            urlsplit(server.url).port or 0,
            len(server.models),
        )
        for server in found
    ]


def local_engine_facts() -> LocalEngineFacts:
    """Whether the embedded engine and its model can run here (a look at installed
    packages, no import of the engine)."""
    from client.backends.engine import local_engine

    installed = local_engine.engine_installed()
    if installed:
        try:
            local_engine.find_model_file()
        except local_engine.LocalEngineUnavailable:
            installed = False
    return LocalEngineFacts(installed, local_engine.INSTALL_COMMAND)


def shown_name(name: str, limit: int = 60) -> str:
    """A server's or model's name as the panel may show it: escaped, and cut."""
    text = visible(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"
