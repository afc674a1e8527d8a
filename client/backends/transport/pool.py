"""httpcore's connection pool, its bookkeeping pass made linear.

httpcore 1.0's AsyncConnectionPool runs `_assign_requests_to_connections` as every
request starts and every response closes. Its check for surplus kept-alive
connections builds a list of every connection once per idle one, so a pass costs
connections squared: at 50 streams about 0.4 ms a pass, twice a request, which at the
end of a round of 50 answers fell between the other streams' last tokens
(tests/perf/test_stream_cpu.py, tests/perf/test_bench_accuracy.py). It also compares the
count of all connections, not of idle ones, with the keep-alive limit
(encode/httpcore#1000, #1035). The pass below does the same work in one walk, with the
limit counted on idle connections; the httpx2 fork made the same change
(pydantic/httpx2#974).

A connection is handed to one request at a time: httpcore gave an idle connection to
every request queued in the same pass (it stays idle until the request starts on it),
and each but one then failed, was queued again and ran another pass; at the start of
a round of 50 that was dozens of passes (httpx2#1075). Tachy speaks HTTP/1.1 only
(httpx's default), where a connection carries one request at a time.
"""

from __future__ import annotations

import httpcore
from httpcore._async.connection_pool import AsyncPoolRequest
from httpcore._async.interfaces import AsyncConnectionInterface


class LinearPool(httpcore.AsyncConnectionPool):
    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        """Drop closed connections, close expired and surplus idle ones, then give each
        queued request a connection: a free one for its origin, else a new one, else
        (at the pool's limit) a new one in place of an idle one."""
        taken = {r.connection for r in self._requests if r.connection is not None}
        closing: list[AsyncConnectionInterface] = []
        kept: list[AsyncConnectionInterface] = []
        for connection in self._connections:
            if connection.is_closed():
                continue
            (closing if connection.has_expired() else kept).append(connection)
        idle = [c for c in kept if c.is_idle() and c not in taken]
        surplus = set(idle[: max(len(idle) - self._max_keepalive_connections, 0)])
        closing += surplus
        self._connections[:] = [c for c in kept if c not in surplus] if surplus else kept
        for request in self._requests:
            if request.is_queued():
                self._assign(request, taken, closing)
        return closing

    def _assign(
        self,
        request: AsyncPoolRequest,
        taken: set[AsyncConnectionInterface],
        closing: list[AsyncConnectionInterface],
    ) -> None:
        origin = request.request.url.origin
        chosen = next(
            (
                c
                for c in self._connections
                if c not in taken and c.can_handle_request(origin) and c.is_available()
            ),
            None,
        )
        if chosen is None and len(self._connections) >= self._max_connections:
            idle = next((c for c in self._connections if c.is_idle() and c not in taken), None)
            if idle is None:
                return  # stays queued until a connection is free
            self._connections.remove(idle)
            closing.append(idle)
        if chosen is None:
            chosen = self.create_connection(origin)
            self._connections.append(chosen)
        taken.add(chosen)
        request.assign_to_connection(chosen)
