"""Saved servers: a name, a URL and the API it speaks. Never an API key: that lives
in the keyring (client/store/secrets.py) under the endpoint's name.

Calls are single short statements; the ui may make them from its loop outside the
streaming hot path, or through `await db.run(...)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from client.store.db import Database

APIS = ("auto", "ollama", "openai")


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: int
    name: str
    url: str
    api: str = "auto"
    created_at: float = 0.0


class EndpointStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, name: str, url: str, api: str = "auto") -> Endpoint:
        """Add an endpoint, or change the URL / API of the one with this name.

        url was checked by the caller (client.backends.address.server_url, the one
        place an address is parsed), so the store keeps whatever it is given."""
        name = name.strip()
        if not name:
            raise ValueError("an endpoint needs a name")
        if api not in APIS:
            raise ValueError(f"api must be one of {APIS}, not {api!r}")
        self.db.execute(
            "INSERT INTO endpoints (name, url, api, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET url = excluded.url, api = excluded.api",
            (name, url, api, self.db.clock()),
        )
        endpoint = self.get(name)
        assert endpoint is not None
        return endpoint

    def get(self, name: str) -> Endpoint | None:
        rows = self.db.query(
            "SELECT id, name, url, api, created_at FROM endpoints WHERE name = ?", (name,)
        )
        return Endpoint(**dict(rows[0])) if rows else None

    def list(self) -> list[Endpoint]:
        rows = self.db.query("SELECT id, name, url, api, created_at FROM endpoints ORDER BY name")
        return [Endpoint(**dict(row)) for row in rows]

    def delete(self, name: str) -> bool:
        """Remove the endpoint (its API key stays in the keyring: delete_api_key(name))."""
        return self.db.execute("DELETE FROM endpoints WHERE name = ?", (name,)).rowcount == 1
