"""Small key/value settings (keep_alive, tier thresholds, budgets ...), JSON values.

Secrets are refused here: API keys go to the keyring (client/store/secrets.py).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict
from typing import Any

from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.store.db import Database

log = logging.getLogger("tachy.store")
_SECRET_NAME = re.compile(r"api[_-]?key|password|secret|credential", re.IGNORECASE)


class Settings:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str, default: Any = None) -> Any:
        rows = self.db.query("SELECT value FROM settings WHERE key = ?", (key,))
        return _decoded(key, rows[0][0], default) if rows else default

    def set(self, key: str, value: Any) -> None:
        if _SECRET_NAME.search(key):
            raise ValueError(f"{key!r} looks like a secret: keep it in the keyring")
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def delete(self, key: str) -> None:
        self.db.execute("DELETE FROM settings WHERE key = ?", (key,))

    def all(self) -> dict[str, Any]:
        rows = self.db.query("SELECT key, value FROM settings")
        values = {row[0]: _decoded(row[0], row[1], _UNREADABLE) for row in rows}
        return {key: value for key, value in values.items() if value is not _UNREADABLE}


_UNREADABLE = object()


def _decoded(key: str, text: object, default: Any) -> Any:
    """A damaged or hand-edited value falls back to the default, with a note in the log."""
    try:
        if isinstance(text, str | bytes):
            return json.loads(text)
    except ValueError:
        pass
    log.warning("setting %r cannot be read (%.40r): using the default", key, text)
    return default


TIER_THRESHOLDS_KEY = "tier_thresholds"


def tier_thresholds(settings: Settings) -> TierThresholds:
    """The user's tier thresholds, or the defaults of shared/DESIGN.md."""
    stored = settings.get(TIER_THRESHOLDS_KEY)
    if not isinstance(stored, dict):
        return DEFAULT_THRESHOLDS
    try:
        return checked_thresholds(TierThresholds(**stored))
    except (TypeError, ValueError):
        return DEFAULT_THRESHOLDS  # a hand-edited or older value: fall back, never crash


def set_tier_thresholds(settings: Settings, thresholds: TierThresholds) -> None:
    settings.set(TIER_THRESHOLDS_KEY, asdict(checked_thresholds(thresholds)))


def checked_thresholds(thresholds: TierThresholds) -> TierThresholds:
    values = (thresholds.instant_below_ms, thresholds.fast_below_ms, thresholds.typing_below_ms)
    if not 0 < values[0] < values[1] < values[2]:
        raise ValueError("tier thresholds must rise: 0 < instant < fast < typing (ms)")
    return thresholds
