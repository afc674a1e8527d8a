"""The pools the user saved in the window (Servers ▸ Pools), kept in the settings like
the saved cascade: each member's server as the picker chose it and its model. API keys
stay in the keyring, named by each server's saved name.
"""

from __future__ import annotations

from dataclasses import asdict

from client.services.fleet.pool import Policy, PoolMember, ServerPool, parse_policy
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import Stores

POOLS_KEY = "pools"  # settings: [{"name", "policy", "model", "tied", "members": [...]}]


class SavedPools:
    def __init__(self, stores: Stores | None) -> None:
        self._settings = stores.settings if stores is not None else None
        self._memory: list[ServerPool] = []  # without a data dir: this run only

    def all(self) -> list[ServerPool]:
        if self._settings is None:
            return list(self._memory)
        value = self._settings.get(POOLS_KEY)
        found = [_pool(item) for item in value] if isinstance(value, list) else []
        return [pool for pool in found if pool is not None]

    def get(self, name: str) -> ServerPool | None:
        return next((pool for pool in self.all() if pool.name == name), None)

    def save(self, pool: ServerPool, old_name: str | None = None) -> None:
        """Add it, or replace the one called `old_name` (or its own name). ValueError,
        with a sentence, when it cannot be used or another pool has its name."""
        pool.check()
        pools = [p for p in self.all() if p.name not in (old_name, pool.name)]
        if old_name is not None and old_name != pool.name and self.get(pool.name):
            raise ValueError(f"A pool is already called {pool.name!r}.")
        self._write([*pools, pool])

    def remove(self, name: str) -> bool:
        pools = self.all()
        kept = [pool for pool in pools if pool.name != name]
        self._write(kept)
        return len(kept) != len(pools)

    def _write(self, pools: list[ServerPool]) -> None:
        self._memory = pools
        if self._settings is not None:
            self._settings.set(POOLS_KEY, [_stored(pool) for pool in pools])


def _stored(pool: ServerPool) -> dict[str, object]:
    return {
        "name": pool.name,
        "policy": pool.policy.value,
        "model": pool.model,
        "tied": pool.tied,
        "members": [{**asdict(m.choice), "model": m.model} for m in pool.members],
    }


def _pool(value: object) -> ServerPool | None:
    """A stored pool, or None when it is damaged (never raises)."""
    if not isinstance(value, dict) or not isinstance(value.get("members"), list):
        return None
    try:
        members = tuple(_member(item) for item in value["members"])
        policy = parse_policy(str(value.get("policy", Policy.FAILOVER.value)))
        return ServerPool(
            str(value["name"]),
            members,
            policy,
            str(value.get("model", "")),
            bool(value.get("tied")),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _member(value: object) -> PoolMember:
    if not isinstance(value, dict):
        raise TypeError("a member is an object")
    key_name = value.get("api_key_name")
    choice = ServerChoice(
        str(value["name"]),
        str(value["url"]),
        str(value["api"]),
        str(key_name) if key_name is not None else None,
        bool(value.get("is_local", False)),
    )
    return PoolMember(choice, str(value.get("model", "")))
