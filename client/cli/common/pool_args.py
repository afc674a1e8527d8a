"""--pool NAME|URL,URL and --policy, shared by `tachy chat` and `tachy bench`, and the
pool's backends: a saved pool's through the app's own, an unsaved one's made here (a
server that cannot be reached still joins: the pool fails over past it)."""

from __future__ import annotations

import argparse
from dataclasses import replace

from client.backends import backend_for, make_backend
from client.backends.base import Backend
from client.backends.errors import TachyError
from client.services.fleet.pool import Policy, ServerPool, parse_policy, pool_from_urls
from client.services.fleet.pool_backend import PoolBackend
from client.services.hud.server_load import ServerLoads
from client.services.tachy import Tachy

POLICIES = ", ".join(policy.value for policy in Policy)


def add_arguments(parser: argparse.ArgumentParser, several_policies: bool = False) -> None:
    parser.add_argument(
        "--pool",
        metavar="NAME|URL,URL",
        help="a pool of servers serving the same model: a saved pool's name, or addresses "
        "(URL or URL#MODEL) separated by commas",
    )
    parser.add_argument(
        "--tied",
        action="store_true",
        help="with --pool: a llama.cpp server reading the question counts as started "
        "(the other request is closed then)",
    )
    if several_policies:
        parser.add_argument(
            "--policy",
            default="all",
            metavar="P[,P]",
            help=f"with --pool: the policies to compare ({POLICIES}; all: each, the default)",
        )
    else:
        parser.add_argument(
            "--policy", metavar="P", help=f"with --pool: {POLICIES} (a saved pool: its own)"
        )


def policies(text: str) -> list[Policy]:
    """'all' or a comma list; TachyError, with a sentence, for a name not known."""
    if text.strip().lower() == "all":
        return list(Policy)
    try:
        return [parse_policy(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise TachyError(str(error)) from None


def find_pool(tachy: Tachy, args: argparse.Namespace, policy: str | None) -> ServerPool:
    """A saved pool by --pool's name, else its addresses; --tied turns tied on."""
    pool = _find_pool(tachy, args.pool, policy, args.api, args.model or "")
    return replace(pool, tied=True) if args.tied else pool


def _find_pool(tachy: Tachy, text: str, policy: str | None, api: str, model: str) -> ServerPool:
    saved = tachy.pools.get(text)
    try:
        if saved is not None:
            return saved if policy is None else _with_policy(saved, parse_policy(policy))
        if "," not in text:
            raise TachyError(f"No saved pool is called {text!r}, and one address is no pool.")
        chosen = parse_policy(policy) if policy else Policy.FAILOVER
        return pool_from_urls(text, chosen, api, model)
    except ValueError as error:
        raise TachyError(str(error)) from None


def _with_policy(pool: ServerPool, policy: Policy) -> ServerPool:
    return ServerPool(pool.name, pool.members, policy, pool.model, pool.tied)


async def member_backends(pool: ServerPool, key: str | None) -> list[Backend]:
    """One backend per member; a member whose API cannot be detected (not reachable)
    gets an OpenAI-compatible one, which fails at its request, so the pool moves on."""
    backends: list[Backend] = []
    for member in pool.members:
        api = member.choice.api
        try:
            backends.append(await make_backend(member.choice.url, api, key))
        except TachyError:
            backends.append(backend_for(member.choice.url, "openai" if api == "auto" else api, key))
    return backends


class OpenPool:
    """The pool's backend for one command: a saved pool's through the app (closed with
    it), an unsaved one's made here and closed on leaving, its members' too."""

    def __init__(self, tachy: Tachy, pool: ServerPool, key: str | None) -> None:
        self._tachy, self._pool, self._key = tachy, pool, key
        self._own: PoolBackend | None = None

    async def __aenter__(self) -> PoolBackend:
        if self._tachy.pools.get(self._pool.name) is not None:  # (maybe another policy)
            return await self._tachy.pool_backend(self._pool)  # its servers' keys too
        backends = await member_backends(self._pool, self._key)
        self._own = PoolBackend(self._pool, backends, ServerLoads(self._pool))
        return self._own

    async def __aexit__(self, *exc: object) -> None:
        if self._own is not None:
            await self._own.aclose()
            for backend in self._own.backends:
                await backend.aclose()
