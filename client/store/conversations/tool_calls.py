"""An answer's tool calls and their results (table message_tool_calls, schema 8).

Each row is one call the model made while writing an answer: its round (the model's
message that carried it: 1, 2 ... within the answer, counted on across a Continue), its
place among that message's calls, where its card sits in the answer's text (`at`: the
characters before it), the call as the model wrote it, the server that ran it, and its
result as the model was given it. A call is saved when its arguments are complete and
again as it is asked about, runs and ends, through the answer's writer
(client/services/chat/answer_writer.py), so it survives a crash as the answer's words
do: a row left without a result is a call whose tool never finished.

A database from before schema 8 gets the empty table on opening: its answers simply
have no tool calls (their tool lines, if any, stay in their text).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from client.store.db import Database

READY, WAITING, RUNNING, DONE = "ready", "waiting", "running", "done"  # a call's status

_COLUMNS = (
    "message_id, round, position, at_char, call_id, name, arguments, server, status, "
    "result, is_error, problem, ms"
)
_UPDATED = ", ".join(
    f"{column} = excluded.{column}"
    for column in _COLUMNS.split(", ")
    if column not in ("message_id", "round", "position")
)


@dataclass(frozen=True, slots=True)
class StoredToolCall:
    """One tool call of an answer, as stored (and as the chat's card shows it).

    status: "ready" (its arguments are complete), "waiting" (for the user's approval),
    "running", "done" (`result` is what the model was given). problem: None, "denied",
    "invalid", "unknown", "limit", "timeout", "server", "tool", "stopped"."""

    message_id: int
    round: int
    position: int
    at: int
    call_id: str
    name: str
    arguments: str = ""  # the arguments' JSON text, as the model wrote them
    server: str = ""
    status: str = READY
    result: str | None = None
    is_error: bool = False
    problem: str | None = None
    ms: float = 0.0  # the tool's run (0 when nothing ran)

    @property
    def settled(self) -> bool:
        return self.status == DONE and self.result is not None


class ToolCallStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, calls: Sequence[StoredToolCall]) -> None:
        """Add or update calls (by message, round and place), in the caller's transaction
        if any; KeyError when their message is gone."""
        if not calls:
            return
        marks = ", ".join("?" * len(_COLUMNS.split(", ")))
        sql = (
            f"INSERT INTO message_tool_calls ({_COLUMNS}) VALUES ({marks}) "
            f"ON CONFLICT (message_id, round, position) DO UPDATE SET {_UPDATED}"
        )
        try:
            with self.db.transaction() as conn:
                conn.executemany(sql, [_row(call) for call in calls])
        except sqlite3.IntegrityError as error:  # the message was deleted meanwhile
            raise KeyError(f"no message {calls[0].message_id}") from error

    def for_message(self, message_id: int) -> list[StoredToolCall]:
        return self.for_messages([message_id]).get(message_id, [])

    def for_messages(self, message_ids: Iterable[int]) -> dict[int, list[StoredToolCall]]:
        """Each message's calls that has any, in the order they were made."""
        found: dict[int, list[StoredToolCall]] = {}
        rows = self.db.query_in(
            f"SELECT {_COLUMNS} FROM message_tool_calls WHERE message_id IN ({{ids}}) "
            "ORDER BY message_id, round, position",
            list(message_ids),
        )
        for row in rows:
            found.setdefault(row[0], []).append(_call(row))
        return found


def _row(call: StoredToolCall) -> tuple[object, ...]:
    return (
        call.message_id, call.round, call.position, call.at, call.call_id, call.name,
        call.arguments, call.server, call.status, call.result, int(call.is_error),
        call.problem, call.ms,
    )  # fmt: skip


def _call(row: sqlite3.Row) -> StoredToolCall:
    values = list(row)
    values[10] = bool(values[10])
    return StoredToolCall(*values)
