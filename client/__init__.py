"""Tachy: a desktop chat client for local LLM servers, built around perceived latency."""

__version__ = "0.1.0"
