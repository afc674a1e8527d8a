"""Tachy: a desktop chat client for local LLM servers, built around perceived latency.
May import: client.cli (`python -m client`); the packages import downward:
ui -> services -> backends | store -> core."""

__version__ = "0.1.0"
