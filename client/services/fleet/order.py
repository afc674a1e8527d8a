"""Which member of a pool goes first, by the pool's policy (pure: no I/O, no clock).

Failed servers go last while they are unhealthy (client/services/fleet/book.py); then
- failover: the user's order;
- least-loaded: the fewest requests running and waiting, ties in the user's order;
- hedged: the same, then the lowest observed median time to first token (a server not
  yet measured counts as fast, so that it is measured).
"""

from __future__ import annotations

from client.services.fleet.book import FleetBook
from client.services.fleet.pool import Policy


def member_load(book: FleetBook, member: int, reported: float | None) -> float:
    """The server's own count when it said one (it includes Tachy's), else Tachy's."""
    own = float(book.in_flight(member))
    return own if reported is None else max(own, reported)


def order(policy: Policy, book: FleetBook, reported: list[float | None]) -> list[int]:
    members = range(len(reported))

    def key(member: int) -> tuple[float, ...]:
        unhealthy = 0.0 if book.healthy(member) else 1.0
        if policy is Policy.FAILOVER:
            return (unhealthy,)
        load = member_load(book, member, reported[member])
        if policy is Policy.LEAST_LOADED:
            return (unhealthy, load)
        return (unhealthy, load, book.p50_ms(member) or 0.0)

    return sorted(members, key=key)  # stable: ties keep the user's order
