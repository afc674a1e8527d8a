"""The servers the user saved and the one used last, read and written for the window
(which never calls client.store itself). API keys stay in the keyring.
"""

from __future__ import annotations

from client.services.servers.servers import ServerChoice, server_url
from client.services.storage.stores import Stores

LAST_SERVER = "last_server"  # settings key: [url, api]


class SavedServers:
    def __init__(self, stores: Stores | None) -> None:
        self._endpoints = stores.endpoints if stores is not None else None
        self._settings = stores.settings if stores is not None else None

    def choices(self) -> list[ServerChoice]:
        """The saved endpoints, by name, as the picker lists them."""
        if self._endpoints is None:
            return []
        return [
            ServerChoice(endpoint.name, endpoint.url, endpoint.api, api_key_name=endpoint.name)
            for endpoint in self._endpoints.list()
        ]

    def save(self, name: str, url: str, api: str) -> ServerChoice | None:
        """Save (or change) an endpoint; None when there is nowhere to keep it.

        Raises InvalidServerAddress for the address and ValueError for the name or
        API, each with a sentence for the user."""
        if self._endpoints is None:
            return None
        endpoint = self._endpoints.save(name, server_url(url), api)
        return ServerChoice(endpoint.name, endpoint.url, endpoint.api, api_key_name=endpoint.name)

    def update(self, old_name: str, name: str, url: str, api: str) -> ServerChoice | None:
        """Change a saved endpoint, its name too; None when there is nowhere to keep it.

        Raises InvalidServerAddress or ValueError (a sentence) like save(), and
        ValueError when another saved server already has the new name."""
        if self._endpoints is None:
            return None
        name = name.strip()
        if name != old_name and self._endpoints.get(name) is not None:
            raise ValueError(f"A saved server is already called {name!r}.")
        choice = self.save(name, url, api)
        if name != old_name:
            self._endpoints.delete(old_name)
        return choice

    def remove(self, name: str) -> bool:
        """Forget a saved endpoint (its key: services.servers.delete_api_key)."""
        return self._endpoints is not None and self._endpoints.delete(name)

    def is_saved(self, choice: ServerChoice | None) -> bool:
        if choice is None or choice.api_key_name is None or self._endpoints is None:
            return False
        return self._endpoints.get(choice.api_key_name) is not None

    def last_used(self) -> tuple[str, str] | None:
        """(url, api) of the server chosen last, in this or an earlier session."""
        value = self._settings.get(LAST_SERVER) if self._settings is not None else None
        if isinstance(value, list) and len(value) == 2:
            return (str(value[0]), str(value[1]))
        return None

    def remember(self, choice: ServerChoice) -> None:
        if self._settings is not None:
            self._settings.set(LAST_SERVER, [choice.url, choice.api])
