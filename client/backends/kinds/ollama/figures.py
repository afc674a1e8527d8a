"""Ollama's side of the server view: GET /api/ps lists the loaded models, their VRAM
and when each unloads (`expires_at`). It exports no counts or histograms."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from client.backends.figures.fetch import Reply, ServerFigures
from client.backends.figures.snapshot import LoadedModel, ServerSnapshot

KIND_NAME = "ollama"


def parse_ollama_ps(body: object) -> ServerSnapshot:
    snap = ServerSnapshot(KIND_NAME)
    entries = body.get("models") if isinstance(body, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        name = entry.get("name") or entry.get("model")
        if not isinstance(name, str):
            continue
        snap.models.append(
            LoadedModel(
                name,
                _count(entry.get("size")),
                _count(entry.get("size_vram")),
                _when(entry.get("expires_at")),
            )
        )
    return snap


class OllamaFigures:
    """The FiguresReader of an Ollama server: /api/ps is all there is."""

    def __init__(
        self, figures: ServerFigures, base_url: str, model: str | None, clock: Callable[[], float]
    ) -> None:
        self.base_url = base_url

    async def read(self, reply: Reply) -> ServerSnapshot:
        body = reply.json()
        if body is None:
            return ServerSnapshot("", error="The server's /api/ps did not answer JSON.")
        return parse_ollama_ps(body)


def _count(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _when(value: object) -> datetime | None:
    """Ollama writes Go times: RFC 3339 with up to 9 fractional digits and an offset."""
    if not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00")
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)  # Python takes at most microseconds
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
