"""The app's persistence, opened once, for the window (client.ui may not import
client.store, so it gets the stores, the data folder and exports from here).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from client.services.storage.data_folder import instance_name as instance_name
from client.services.storage.data_folder import window_state_file as window_state_file
from client.store.conversations.export import export_json, export_markdown
from client.store.conversations.history import HistoryStore
from client.store.endpoints import EndpointStore
from client.store.metrics_store import MetricsRecord, MetricsStore
from client.store.recovery import HistoryProblem, ProblemKind, open_history
from client.store.settings import Settings

__all__ = [
    "HistoryProblem",
    "ProblemKind",
    "Stores",
    "export_conversation",
    "instance_name",
    "open_stores",
    "window_state_file",
]

log = logging.getLogger("tachy.store")
DELETED_GRACE_S = 600.0  # soft-deleted conversations older than this are purged at start


@dataclass(slots=True)
class Stores:
    """The stores the window reads and writes; None where a test left one out."""

    history: HistoryStore | None = None
    metrics: MetricsStore | None = None
    endpoints: EndpointStore | None = None
    settings: Settings | None = None
    problem: HistoryProblem | None = None  # damaged, newer or unusable: the banner says

    def close(self) -> None:
        """Finish queued writes and close the database they share (on quit)."""
        if self.history is not None:
            self.history.db.close()


def open_stores(path: Path | None = None) -> Stores:
    """Open (and migrate) the database at path, else in the data folder. A damaged,
    newer or unusable history still gives working stores (client/store/recovery.py)."""
    opened = open_history(path)
    db = opened.db
    if opened.problem is not None:
        log.warning("%s", opened.problem.sentence())
    history = HistoryStore(db)
    # Undo lasts as long as the session that deleted: what an earlier session deleted
    # is gone for good now (a grace period covers a second window still offering Undo).
    history.purge_deleted(db.clock() - DELETED_GRACE_S)
    stores = Stores(history, MetricsStore(db), EndpointStore(db), Settings(db))
    stores.problem = opened.problem
    return stores


def export_conversation(stores: Stores, conversation_id: int, kind: str) -> str:
    """The conversation as Markdown (kind "markdown") or JSON, with its metrics."""
    if stores.history is None or stores.metrics is None:
        raise ValueError("there is no history to export")
    write = export_markdown if kind == "markdown" else export_json
    return write(stores.history, stores.metrics, conversation_id)


def recent_requests(stores: Stores, limit: int) -> list[MetricsRecord]:
    """The last `limit` requests' metrics, oldest first (the HUD's history at start)."""
    return stores.metrics.query(limit=limit) if stores.metrics is not None else []
