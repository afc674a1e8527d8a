"""Which member of a pool goes first, by the pool's policy (pure: no I/O, no clock).

Failed servers go last while they are unhealthy (client/services/fleet/book.py); then
- failover: the user's order;
- least-loaded: the fewest requests running and waiting, ties in the user's order;
- hedged: the same, then the shortest P95 wait for a first token, the wait the hedge
  gives it (the best route is the one whose slow requests are least slow; a server not
  yet measured counts as fast, so that it is measured).
"""

from __future__ import annotations

from client.services.fleet.book import FleetBook
from client.services.fleet.pool import Policy


def member_load(book: FleetBook, member: int, others: float | None) -> float:
    """Tachy's requests in flight to it now, and other clients' as the server said."""
    return float(book.in_flight(member)) + (others or 0.0)


def order(policy: Policy, book: FleetBook, reported: list[float | None]) -> list[int]:
    members = range(len(reported))

    def key(member: int) -> tuple[float, ...]:
        unhealthy = 0.0 if book.healthy(member) else 1.0
        if policy is Policy.FAILOVER:
            return (unhealthy,)
        load = member_load(book, member, reported[member])
        if policy is Policy.LEAST_LOADED:
            return (unhealthy, load)
        return (unhealthy, load, book.p95_wait_ms(member) or 0.0)

    return sorted(members, key=key)  # stable: ties keep the user's order
