"""The "retrieving" stage: the best passages of the user's documents for a question,
found within a time budget, and how they are shown to the model and to the user.

The budget is real: SQLite stops the query when it passes (a progress handler, see
client/store/knowledge/index.py), and the answer goes on without passages, saying so.
A passage whose file was deleted since it was indexed is never returned: each hit's
file is checked (a stat, microseconds) and the missing ones are dropped from the index.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client.services.planning import planner
from client.services.planning.planner import Passage
from client.store.knowledge.db import KnowledgeUnavailable
from client.store.knowledge.files import display_path
from client.store.knowledge.index import Hit, KnowledgeIndex, SearchTimedOut

DEFAULT_BUDGET_MS = 50.0
DEFAULT_K = 5

__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_K",
    "Hit",
    "Retrieval",
    "citation",
    "question_with_passages",
    "search_within",
]


@dataclass(frozen=True, slots=True)
class Retrieval:
    passages: list[Hit]
    ms: float
    timed_out: bool = False
    error: str = ""  # a sentence when the index could not be searched
    missing: list[str] = field(default_factory=list)  # files found deleted

    @property
    def tokens(self) -> int:
        return sum(hit.tokens for hit in self.passages)

    def notice(self) -> str:
        """What the user is told when the answer goes on without passages (or "")."""
        if self.error:
            return f"Your notes were not searched: {self.error}"
        if self.timed_out:
            return f"Searching your notes took over {self.ms:.0f} ms; answered without them."
        return ""

    def as_event(self) -> dict[str, Any]:
        """The `retrieved` event of `tachy chat --kb --json`."""
        event: dict[str, Any] = {
            "event": "retrieved",
            "ms": round(self.ms, 3),
            "timed_out": self.timed_out,
            "passages": [
                {"path": hit.path, "line_start": hit.line_start, "score": hit.score}
                for hit in self.passages
            ],
        }
        if self.error:
            event["error"] = self.error
        return event


def search_within(
    open_index: Callable[[], KnowledgeIndex],
    question: str,
    k: int,
    budget_ms: float | None,
    drop_missing: Callable[[list[str]], None] | None = None,
) -> Retrieval:
    """Blocking search bounded by budget_ms (None: no bound); see the module docstring."""
    started = time.perf_counter_ns()
    deadline = None if budget_ms is None else started + int(budget_ms * 1e6)
    try:
        index = open_index()
        # A few more than asked for, so a deleted file's passages can be replaced.
        hits = index.search(question, k + 3, deadline)
    except SearchTimedOut:
        return Retrieval([], _ms_since(started), timed_out=True)
    except KnowledgeUnavailable as error:
        return Retrieval([], _ms_since(started), error=str(error))
    kept, missing = _existing(hits)
    if missing and drop_missing is not None:
        drop_missing(missing)
    ms = _ms_since(started)
    if budget_ms is not None and ms > budget_ms:
        # Finished, but late (between SQLite's checks, or in the stats): the answer
        # has already gone on without them.
        return Retrieval([], ms, timed_out=True, missing=missing)
    return Retrieval(kept[:k], ms, missing=missing)


def _existing(hits: list[Hit]) -> tuple[list[Hit], list[str]]:
    kept: list[Hit] = []
    missing: list[str] = []
    for hit in hits:
        if hit.path in missing:
            continue
        if os.path.isfile(hit.path):
            kept.append(hit)
        else:
            missing.append(hit.path)
    return kept, missing


def _ms_since(started_ns: int) -> float:
    return (time.perf_counter_ns() - started_ns) / 1e6


def citation(hit: Hit) -> str:
    """Where a passage is, as the user reads it: ~/notes/trip.md:12-30 (or p. 3)."""
    where = display_path(hit.path)
    if hit.unit == "page":
        pages = (
            f"{hit.line_start}"
            if hit.line_start == hit.line_end
            else f"{hit.line_start}-{hit.line_end}"
        )
        return f"{where} p. {pages}"
    if hit.line_start == hit.line_end:
        return f"{where}:{hit.line_start}"
    return f"{where}:{hit.line_start}-{hit.line_end}"


def question_with_passages(question: str, passages: list[Hit]) -> str:
    """The user message that carries the passages before the question, as the
    request planner lays it out (client.services.planning.planner, PlanInput.passages)."""
    return planner.question_with_passages(question, as_passages(passages))


def as_passages(hits: list[Hit]) -> list[Passage]:
    """Hits as the planner's passages, each named by its citation."""
    return [Passage(citation(hit), hit.text) for hit in hits]
