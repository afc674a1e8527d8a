"""The servers the user saved and the one used last, read and written for the window
(which never calls client.store itself). API keys stay in the keyring.
"""

from __future__ import annotations

from client.backends.address import normalize_url
from client.services.servers.servers import ServerChoice, server_url
from client.services.storage.stores import Stores

LAST_SERVER = "last_server"  # settings key: [url, api]
# settings key: {server url: its router's own metrics address (vllm-router's
# --prometheus-port)}, for the server view; a server without one has none here.
ROUTER_METRICS = "router_metrics"


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

    def metrics_url(self, url: str) -> str | None:
        """The router's metrics address the user gave for the server at `url`."""
        found = self._settings.get(ROUTER_METRICS) if self._settings is not None else None
        given = found.get(normalize_url(url)) if isinstance(found, dict) else None
        return given if isinstance(given, str) and given else None

    def set_metrics_url(self, url: str, metrics_url: str) -> None:
        """Keep (or, with "", forget) a router's metrics address for the server at `url`."""
        if self._settings is None:
            return
        found = self._settings.get(ROUTER_METRICS)
        known = dict(found) if isinstance(found, dict) else {}
        known.pop(normalize_url(url), None)
        if metrics_url:
            known[normalize_url(url)] = metrics_url
        self._settings.set(ROUTER_METRICS, known)

    def last_used(self) -> tuple[str, str] | None:
        """(url, api) of the server chosen last, in this or an earlier session."""
        value = self._settings.get(LAST_SERVER) if self._settings is not None else None
        if isinstance(value, list) and len(value) == 2:
            return (str(value[0]), str(value[1]))
        return None

    def remember(self, choice: ServerChoice) -> None:
        if self._settings is not None:
            self._settings.set(LAST_SERVER, [choice.url, choice.api])


def metrics_address(text: str) -> str:
    """A router's metrics address as typed ("" for none): an http(s) address, without the
    /metrics the server view adds; InvalidServerAddress (a sentence) otherwise."""
    text = text.strip()
    if not text:
        return ""
    url = server_url(text)
    return url.removesuffix("/metrics")
