"""Small JSON requests (model lists, versions) and the shared HTTP client settings."""

from __future__ import annotations

from typing import Any

import httpx

from client.backends.address import server_url
from client.backends.decoders import (
    error_from_http,
    html_refused,
    looks_like_html,
    redirect_refused,
    snippet,
)
from client.backends.errors import BackendUnreachable, ProtocolError, TachyError
from client.backends.reasons import reason_of
from client.backends.stream import ErrorMapper
from client.backends.transport.transport import ResendingTransport

CONNECT_TIMEOUT_S = 5.0
REQUEST_TIMEOUT_S = 10.0


def new_client() -> httpx.AsyncClient:
    # Read timeout None: ChatStream enforces first-byte and stall deadlines itself,
    # so a long prompt on a slow machine is not cut off by the transport.
    # The transport resends a request that met a connection the server had closed
    # (client/backends/transport/transport.py). With a transport given, httpx reads no proxy
    # variables, so a server on loopback is never reached through a proxy.
    return httpx.AsyncClient(
        transport=ResendingTransport(), timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT_S)
    )


def root_url(url: str, suffixes: tuple[str, ...]) -> str:
    """The server root from what a user typed: checked (InvalidServerAddress), with no
    trailing slash or API suffix."""
    url = server_url(url)
    for suffix in suffixes:
        if url.endswith(suffix):
            return url[: -len(suffix)].rstrip("/")
    return url


def error_mapper(model: str = "") -> ErrorMapper:
    def map_http_error(response: httpx.Response, body: bytes) -> TachyError:
        return error_from_http(
            response.status_code,
            body,
            response.headers.get("content-type", ""),
            model,
            response.reason_phrase,
        )

    return map_http_error


async def request_json(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    json: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    model: str = "",
    timeout_s: float = REQUEST_TIMEOUT_S,
) -> Any:
    """A JSON answer, or a typed error with the server's own message."""
    try:
        response = await client.request(
            method,
            url,
            json=json,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S)),
        )
    except httpx.TimeoutException as error:
        raise BackendUnreachable(url, f"no answer within {timeout_s:g} s") from error
    except httpx.TransportError as error:
        raise BackendUnreachable(url, reason_of(error)) from error
    except httpx.HTTPError as error:  # e.g. a body that fails its content-encoding
        raise ProtocolError(str(error) or type(error).__name__) from error
    if response.status_code >= 400:
        raise error_mapper(model)(response, response.content[:65536])
    if response.is_redirect:
        raise redirect_refused(response.status_code, response.headers.get("location", ""))
    try:
        return response.json()
    except ValueError:
        text = response.text
        if looks_like_html(text):
            raise html_refused() from None
        raise ProtocolError(f"{url} did not answer JSON: {snippet(text)!r}") from None


def as_dict(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"{what} is not a JSON object")
    return value
