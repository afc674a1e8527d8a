"""Managing an Ollama server's models: pull one (streamed progress) and delete one.

POST /api/pull streams NDJSON status lines ("pulling manifest", "pulling <digest>"
with total/completed bytes per layer, "verifying sha256 digest", "success"), or a line
{"error": "..."}; DELETE /api/delete answers 200 with no body, 404 for an unknown name.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx

from client.backends.errors import BackendUnreachable, ModelNotFound, ProtocolError, ServerError
from client.backends.http_json import CONNECT_TIMEOUT_S, error_mapper
from client.backends.reasons import reason_of

PULL_STALL_S = 300.0  # Ollama says nothing while it verifies a big blob


@dataclass(frozen=True, slots=True)
class PullProgress:
    status: str  # Ollama's own words: "pulling manifest", "pulling 1a2b3c", "success"
    completed: int = 0  # bytes of the whole pull so far (every layer seen)
    total: int = 0  # bytes of every layer announced so far

    @property
    def fraction(self) -> float | None:
        return self.completed / self.total if self.total else None

    @property
    def done(self) -> bool:
        return self.status == "success"


async def pull(client: httpx.AsyncClient, base_url: str, name: str) -> AsyncIterator[PullProgress]:
    """Progress of pulling `name`, ending with status "success"; a typed error when the
    server refuses (ModelNotFound for a name its registry lacks). Closing the iterator
    (a cancel) closes the connection, which stops Ollama's download."""
    layers: dict[str, tuple[int, int]] = {}  # digest -> (completed, total)
    timeout = httpx.Timeout(PULL_STALL_S, connect=CONNECT_TIMEOUT_S)
    body = {"model": name, "stream": True}
    try:
        async with client.stream(
            "POST", f"{base_url}/api/pull", json=body, timeout=timeout
        ) as response:
            if response.status_code >= 400:
                raise error_mapper(name)(response, (await response.aread())[:65536])
            async for line in response.aiter_lines():
                progress = _progress(line, name, layers)
                if progress is not None:
                    yield progress
    except httpx.TimeoutException as error:
        raise BackendUnreachable(base_url, f"no word for {PULL_STALL_S:g} s") from error
    except httpx.TransportError as error:
        raise BackendUnreachable(base_url, reason_of(error)) from error


def _progress(line: str, name: str, layers: dict[str, tuple[int, int]]) -> PullProgress | None:
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        raise ProtocolError(f"/api/pull sent a line that is not JSON: {line[:80]!r}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("/api/pull sent a line that is not a JSON object")
    if "error" in obj:
        message = str(obj["error"])
        if "file does not exist" in message or "not found" in message:
            raise ModelNotFound(name, message)
        raise ServerError(None, message)
    digest = obj.get("digest")
    if isinstance(digest, str) and isinstance(obj.get("total"), int):
        layers[digest] = (int(obj.get("completed") or 0), int(obj["total"]))
    completed = sum(done for done, _ in layers.values())
    total = sum(size for _, size in layers.values())
    return PullProgress(str(obj.get("status", "")), completed, total)


async def delete(client: httpx.AsyncClient, base_url: str, name: str) -> None:
    """Delete a model from the server; ModelNotFound when it has none by that name."""
    try:
        response = await client.request(
            "DELETE",
            f"{base_url}/api/delete",
            json={"model": name},
            timeout=httpx.Timeout(30.0, connect=CONNECT_TIMEOUT_S),
        )
    except httpx.TransportError as error:
        raise BackendUnreachable(base_url, reason_of(error)) from error
    if response.status_code >= 400:
        raise error_mapper(name)(response, response.content[:65536])
