"""What a FleetStream asks of its pool (the PoolBackend gives it): the members' servers,
names and models, their order by the policy, and the book of their figures. A protocol
of its own, so fleet_stream.py and pool_backend.py do not import each other."""

from __future__ import annotations

from typing import Protocol

from client.backends.base import Backend
from client.services.fleet.book import FleetBook
from client.services.fleet.pool import ServerPool


class PoolMembers(Protocol):
    pool: ServerPool
    book: FleetBook

    def member_backend(self, member: int) -> Backend: ...

    def model_of(self, member: int) -> str: ...

    def member_name(self, member: int) -> str: ...

    async def order(self) -> list[int]: ...
