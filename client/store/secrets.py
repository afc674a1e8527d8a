"""API keys, kept only in the system keyring (service "tachy", user = endpoint name).

Never in SQLite, settings, logs or exports. Keyring calls may block (D-Bus, a
locked wallet prompting), so the ui calls these through an executor, never while
painting a stream.
"""

from __future__ import annotations

import keyring
from keyring.errors import KeyringError, NoKeyringError, PasswordDeleteError

SERVICE = "tachy"


class SecretsUnavailable(RuntimeError):
    """The keyring cannot be used; str() is a sentence for the user."""


_NO_KEYRING = (
    "No system keyring is available, so Tachy cannot keep the API key. Install or unlock "
    "one (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager) and try again."
)


# What a keyring backend raises when it cannot serve: its own errors, and the D-Bus or
# OS errors some backends let through (a wallet daemon gone, a dismissed unlock prompt).
_REFUSALS = (KeyringError, RuntimeError, OSError)


def _unavailable(error: Exception) -> SecretsUnavailable:
    if isinstance(error, NoKeyringError):
        return SecretsUnavailable(_NO_KEYRING)
    return SecretsUnavailable(f"The system keyring refused the request: {error}")


def set_api_key(account: str, api_key: str) -> None:
    """account: the endpoint's name (or its URL when it has none)."""
    if not api_key:
        raise ValueError("an empty API key cannot be saved; delete it instead")
    try:
        keyring.set_password(SERVICE, account, api_key)
    except _REFUSALS as error:
        raise _unavailable(error) from error


def get_api_key(account: str) -> str | None:
    try:
        return keyring.get_password(SERVICE, account)
    except _REFUSALS as error:
        raise _unavailable(error) from error


def delete_api_key(account: str) -> bool:
    """True when a key was deleted, False when there was none."""
    try:
        keyring.delete_password(SERVICE, account)
    except PasswordDeleteError:
        return False
    except _REFUSALS as error:
        raise _unavailable(error) from error
    return True
