"""A saved pool: servers serving the same model, and the policy that picks among them.

    pool = ServerPool("GPU boxes", (PoolMember(choice_a, "llama3.2"), ...), Policy.HEDGED)

- failover: the first healthy member in the user's order; the next one when it fails
  before its first token.
- least-loaded: the member with the fewest requests running and waiting (from the
  server's own figures and Tachy's requests in flight), failing over as above.
- hedged: the best member first; once it has been waiting for its observed P95 time to
  first token, the next one too; the first to give a token wins, the other is closed.
  `tied`: a llama.cpp server's prompt progress counts as started (it is reading the
  question), so the other request is closed then.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from client.services.servers.servers import ServerChoice, normalize_url


class Policy(StrEnum):
    FAILOVER = "failover"
    LEAST_LOADED = "least-loaded"
    HEDGED = "hedged"


@dataclass(frozen=True, slots=True)
class PoolMember:
    choice: ServerChoice
    model: str = ""  # "": the pool's model (servers may name one model differently)

    @property
    def name(self) -> str:
        return self.choice.name


@dataclass(frozen=True, slots=True)
class ServerPool:
    name: str
    members: tuple[PoolMember, ...]
    policy: Policy = Policy.FAILOVER
    model: str = ""  # the model every member serves, unless a member names its own
    tied: bool = False

    def model_of(self, member: PoolMember) -> str:
        return member.model or self.model

    def check(self) -> None:
        """ValueError, with a sentence, when the pool cannot be used."""
        if not self.name.strip():
            raise ValueError("A pool needs a name.")
        if len(self.members) < 2:
            raise ValueError("A pool needs at least two servers.")
        keys = [member.choice.key for member in self.members]
        if len(set(keys)) != len(keys):
            raise ValueError("A server is in the pool twice.")


def parse_policy(text: str) -> Policy:
    try:
        return Policy(text.strip().lower())
    except ValueError:
        names = ", ".join(policy.value for policy in Policy)
        raise ValueError(f"The policy is one of {names}, not {text!r}.") from None


def pool_from_urls(urls: str, policy: Policy, api: str, model: str = "") -> ServerPool:
    """`tachy chat --pool URL,URL`: an unsaved pool named by its addresses; a member
    is `URL` or `URL#MODEL`."""
    members = []
    for part in urls.split(","):
        url, _, own_model = part.strip().partition("#")
        if not url:
            continue
        address = normalize_url(url)
        shown = address.split("://", 1)[-1]
        members.append(PoolMember(ServerChoice(shown, address, api), own_model))
    pool = ServerPool(",".join(m.name for m in members), tuple(members), policy, model)
    pool.check()
    return pool


POOL_API = "pool"  # a pool as the server picker lists it: ServerChoice(name, "pool://NAME", "pool")


def pool_choice(pool: ServerPool) -> ServerChoice:
    """The pool as the server picker lists it, beside the servers."""
    return ServerChoice(pool.name, f"{POOL_API}://{pool.name}", POOL_API)


def pool_name(choice: ServerChoice) -> str | None:
    """The pool's name when the picker's choice is a pool, else None."""
    if choice.api != POOL_API:
        return None
    return choice.url.split("://", 1)[-1]
