"""Each conversation's summary of its older turns (history compression), kept across
restarts. The summarised messages themselves stay in the history as they are; a
summary names the ids of those it stands for, so its reader can tell whether they are
still the conversation's (client/services/planning/compression.py, `StoredSummary.holds_for`).

Calls are single short statements; run them through `await db.run(...)` or outside
the streaming hot path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from client.store.db import Database


@dataclass(frozen=True, slots=True)
class SavedSummary:
    text: str
    covered_ids: tuple[int | None, ...]


class SummaryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, conversation_id: int, text: str, covered_ids: tuple[int | None, ...]) -> None:
        """The conversation's summary, replacing the one it had."""
        self.db.execute(
            "INSERT INTO history_summaries (conversation_id, text, covered_ids, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(conversation_id) DO UPDATE SET "
            "text = excluded.text, covered_ids = excluded.covered_ids, "
            "created_at = excluded.created_at",
            (conversation_id, text, json.dumps(list(covered_ids)), self.db.clock()),
        )

    def get(self, conversation_id: int) -> SavedSummary | None:
        rows = self.db.query(
            "SELECT text, covered_ids FROM history_summaries WHERE conversation_id = ?",
            (conversation_id,),
        )
        if not rows:
            return None
        try:
            ids = json.loads(rows[0]["covered_ids"])
        except ValueError:
            return None  # a damaged row: as if there were none (the history is untouched)
        if not isinstance(ids, list) or not all(i is None or isinstance(i, int) for i in ids):
            return None
        return SavedSummary(str(rows[0]["text"]), tuple(ids))
