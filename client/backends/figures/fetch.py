"""The HTTP side of the HUD's server view: the few short GETs that read what a server
says about itself (each kind's folder, client/backends/kinds/<kind>/, says which paths
and parses what they return).

Never raises: a failure is a Reply with `error` set, in one plain sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from client.backends.reasons import reason_of

FIGURES_TIMEOUT_S = 0.8  # shorter than the 1 s poll interval, so polls never pile up


@dataclass(frozen=True, slots=True)
class Reply:
    path: str
    status: int | None = None
    text: str = ""
    error: str = ""

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.text)
        except ValueError:
            return None


class ServerFigures:
    """One client without kept-alive connections (a poll a second does not need them,
    and a view dropped without aclose() leaves no open socket behind)."""

    def __init__(self) -> None:
        self._client = httpx.AsyncClient(
            limits=httpx.Limits(max_keepalive_connections=0), trust_env=False
        )

    async def get(self, base_url: str, path: str) -> Reply:
        try:
            response = await self._client.get(
                base_url.rstrip("/") + path, timeout=FIGURES_TIMEOUT_S
            )
        except httpx.HTTPError as error:
            return Reply(path, error=f"No server figures: {reason_of(error)}.")
        return Reply(path, response.status_code, response.text)

    async def aclose(self) -> None:
        await self._client.aclose()
