"""How a search box's text becomes a literal SQL pattern (LIKE) or FTS5 phrase."""

from __future__ import annotations


def like_pattern(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, with % _ and \\ taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def fts_phrase(text: str) -> str:
    """An FTS5 query for `text` as one literal phrase (trigram: a substring)."""
    return '"' + text.replace('"', '""') + '"'
