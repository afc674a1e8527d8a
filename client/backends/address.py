"""A server address, parsed and checked once: every command and the window pass what
the user typed through `server_url` before anything is sent.
"""

from __future__ import annotations

import httpx

from client.backends.errors import InvalidServerAddress

SCHEMES = ("http", "https")


def normalize_url(text: str) -> str:
    """The address as the app keys it: no surrounding blanks or trailing slash, and
    http:// when no scheme was given ("127.0.0.1:11434"). Never raises."""
    url = text.strip()
    scheme, _, rest = url.partition("://") if "://" in url else ("http", "", url)
    return f"{scheme}://{rest.rstrip('/')}"


def server_url(text: str) -> str:
    """normalize_url(text) when it is a usable http(s) server address, else
    InvalidServerAddress with one sentence saying what is wrong."""
    url = normalize_url(text)
    scheme = url.split("://", 1)[0].lower()
    if scheme not in SCHEMES:
        raise InvalidServerAddress(text, f"'{scheme}://' is not supported; use http:// or https://")
    if any(character.isspace() for character in url):
        raise InvalidServerAddress(text, "it contains a space")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as error:
        raise InvalidServerAddress(text, str(error).rstrip(".").lower()) from error
    if not parsed.host:
        raise InvalidServerAddress(text, "it has no host name")
    if parsed.port is not None and not 0 < parsed.port < 65536:
        raise InvalidServerAddress(text, f"port {parsed.port} is out of range")
    if parsed.userinfo:
        shown = str(parsed.copy_with(username=None, password=None))  # never echo a password
        raise InvalidServerAddress(
            shown,
            "it contains a user name or password; give the API key separately "
            "(so it is kept in the system keyring, not in the address)",
        )
    return url
