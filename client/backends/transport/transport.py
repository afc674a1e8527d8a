"""The HTTP transport under every backend's client: a request that meets a kept-alive
connection the server has already closed is sent again on a fresh one.

llama.cpp's server (llama-server, and so the local engine) sometimes closes the
connection right after a streamed reply although it announced keep-alive; when the
reply's last bytes arrive before that close, the connection goes back to the pool and
the next request written on it gets no answer at all. Measured against the local
engine: 9 of 60 back-to-back streamed requests on one client failed that way
("Server disconnected without sending a response"). Nothing of such a request was
read by the server, so sending it again is safe; browsers do the same.

Its sockets are plain asyncio ones (client/backends/transport/socket_stream.py), cheaper per read
than httpx's default.
"""

from __future__ import annotations

import logging

import httpx

from client.backends.transport.pool import LinearPool
from client.backends.transport.socket_stream import AsyncioBackend

log = logging.getLogger(__name__)

# Each attempt takes one stale connection out of the pool; two cover a warm-up and an
# answer that ended side by side.
RESENDS = 2
_NO_REPLY = "without sending a response"  # httpcore's words for a close before any byte


class ResendingTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or http_transport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(RESENDS):
            try:
                return await self._inner.handle_async_request(request)
            except httpx.RemoteProtocolError as error:
                if _NO_REPLY not in str(error):
                    raise
                log.debug("%s %s: closed before a reply, sent again", request.method, request.url)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


# No cap on connections, open or kept alive: httpx's default (100, of which 20 kept)
# queued a bench past 100 streams inside the client, and at 50 streams closed the
# connections after each answer and opened them again (149 connects for 150 requests;
# httpcore counts all connections against the keep-alive limit), work that fell between
# the other streams' tokens. Idle ones still close after 5 s.
KEEPALIVE_S = 5.0


def http_transport() -> httpx.AsyncHTTPTransport:
    """httpx's transport over a pool whose connections AsyncioBackend makes and whose
    bookkeeping is linear (client/backends/transport/pool.py). httpx takes neither, so its pool is
    replaced (tests/backends/transport/test_socket_stream.py checks it)."""
    transport = httpx.AsyncHTTPTransport()
    transport._pool = LinearPool(
        ssl_context=transport._pool._ssl_context,  # made once, with the system's CAs
        max_connections=None,
        max_keepalive_connections=None,
        keepalive_expiry=KEEPALIVE_S,
        network_backend=AsyncioBackend(),
    )
    return transport
