"""The cascade the user set up in the window (a fast and a strong model, each on a
server), kept in the settings like the saved servers; API keys stay in the keyring,
named by the server's saved name as for any server.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from client.services.servers.servers import ServerChoice
from client.services.storage.stores import Stores

# settings: {"fast": part, "strong": part, "on": bool, "classify": bool}
CASCADE_KEY = "cascade"


@dataclass(frozen=True, slots=True)
class CascadePart:
    """One half: the server (as the picker chose it) and its model."""

    name: str
    url: str
    api: str
    model: str
    api_key_name: str | None = None
    is_local: bool = False

    @classmethod
    def of(cls, choice: ServerChoice, model: str) -> CascadePart:
        return cls(choice.name, choice.url, choice.api, model, choice.api_key_name, choice.is_local)

    @property
    def choice(self) -> ServerChoice:
        return ServerChoice(self.name, self.url, self.api, self.api_key_name, self.is_local)


@dataclass(frozen=True, slots=True)
class CascadeProfile:
    fast: CascadePart | None = None
    strong: CascadePart | None = None
    on: bool = False
    # The fast model classifies each question within the router's budget (150 ms) before
    # the rules' choice is taken. Off by default: it adds up to the budget to every first
    # token, and on the labelled questions SmolLM2-135M's word is less often right than
    # the rules (README, "Cascade").
    classify: bool = False

    @property
    def complete(self) -> bool:
        return self.fast is not None and self.strong is not None


class SavedCascade:
    def __init__(self, stores: Stores | None) -> None:
        self._settings = stores.settings if stores is not None else None
        self._memory = CascadeProfile()  # without a data dir: this run only

    def load(self) -> CascadeProfile:
        if self._settings is None:
            return self._memory
        value = self._settings.get(CASCADE_KEY)
        if not isinstance(value, dict):
            return CascadeProfile()
        return CascadeProfile(
            _part(value.get("fast")),
            _part(value.get("strong")),
            bool(value.get("on")),
            bool(value.get("classify")),
        )

    def save(self, profile: CascadeProfile) -> None:
        self._memory = profile
        if self._settings is not None:
            self._settings.set(
                CASCADE_KEY,
                {
                    "fast": asdict(profile.fast) if profile.fast else None,
                    "strong": asdict(profile.strong) if profile.strong else None,
                    "on": profile.on,
                    "classify": profile.classify,
                },
            )


def _part(value: object) -> CascadePart | None:
    """A stored half, or None when it is missing or damaged (never raises)."""
    if not isinstance(value, dict):
        return None
    try:
        return CascadePart(
            name=str(value["name"]),
            url=str(value["url"]),
            api=str(value["api"]),
            model=str(value["model"]),
            api_key_name=value.get("api_key_name"),
            is_local=bool(value.get("is_local", False)),
        )
    except KeyError:
        return None
