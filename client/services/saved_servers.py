"""The servers the user saved and the one used last, read and written for the window
(which never calls client.store itself). API keys stay in the keyring.
"""

from __future__ import annotations

from client.services.servers import ServerChoice, server_url
from client.services.stores import Stores

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

    def last_used(self) -> tuple[str, str] | None:
        """(url, api) of the server chosen last, in this or an earlier session."""
        value = self._settings.get(LAST_SERVER) if self._settings is not None else None
        if isinstance(value, list) and len(value) == 2:
            return (str(value[0]), str(value[1]))
        return None

    def remember(self, choice: ServerChoice) -> None:
        if self._settings is not None:
            self._settings.set(LAST_SERVER, [choice.url, choice.api])
