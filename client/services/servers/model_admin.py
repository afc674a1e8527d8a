"""Pulling, deleting and describing a server's models, for the window and the CLI.

Only Ollama manages its models over HTTP; for another server each call raises
ModelsNotManaged, one sentence saying so.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.ollama.models import PullProgress as PullProgress  # re-exported
from client.backends.base import Backend
from client.backends.errors import TachyError


class ModelsNotManaged(TachyError):
    retryable = False

    def __init__(self, api: str) -> None:
        super().__init__(
            f"This {api} server does not pull or delete models over its API: "
            "only Ollama does. Manage its models where it runs."
        )


@dataclass(frozen=True, slots=True)
class ModelFacts:
    name: str
    size_bytes: int | None
    family: str | None
    parameter_size: str | None
    quantization: str | None


def _ollama(backend: Backend) -> OllamaBackend:
    if not isinstance(backend, OllamaBackend):
        raise ModelsNotManaged(str(getattr(backend, "api", "OpenAI-compatible")))
    return backend


def can_manage(backend: Backend) -> bool:
    return isinstance(backend, OllamaBackend)


def pull_model(backend: Backend, name: str) -> AsyncIterator[PullProgress]:
    """The pull's progress; ends with status "success". Raises ModelNotFound for a
    name the server's registry lacks."""
    return _ollama(backend).pull(name.strip())


async def delete_model(backend: Backend, name: str) -> None:
    await _ollama(backend).delete(name)


async def describe_models(backend: Backend) -> list[ModelFacts]:
    """Each installed model with its size (/api/tags), family and quantisation
    (/api/show)."""
    ollama = _ollama(backend)
    facts = []
    for info in await ollama.list_models():
        try:
            details = await ollama.show(info.name)
        except TachyError:  # listed but not described: show what the list says
            facts.append(ModelFacts(info.name, info.size_bytes, None, None, None))
            continue
        facts.append(
            ModelFacts(
                info.name,
                info.size_bytes,
                details.family,
                details.parameter_size,
                details.quantization,
            )
        )
    return facts


def size_text(size_bytes: int | None) -> str:
    """ "1.3 GB", "271 MB" (command line and window alike: units are not translated)."""
    if not size_bytes:
        return ""
    if size_bytes >= 10**9:
        return f"{size_bytes / 1e9:.1f} GB"
    return f"{size_bytes / 1e6:.0f} MB" if size_bytes >= 10**6 else f"{size_bytes} bytes"


# The sentence ModelNotFound says (client/backends/errors.py), as a chat's error shows it.
_MISSING = re.compile(r"The server has no model named '(.+?)'\.? Pick one")


def missing_model(error_sentence: str) -> str | None:
    """The model a chat's "no model named" failure names, else None."""
    found = _MISSING.search(error_sentence)
    return found[1] if found else None
