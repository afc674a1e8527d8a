"""Conversations and their messages, as a tree (regenerate and edit make branches).

Each call is a few indexed statements (well under a millisecond), so the ui may call
it from its loop outside the streaming hot path, or via `await db.run(...)` (see
client/store/db.py). While an answer streams, the session adds the assistant message
with state streaming, appends text with `append_text` at most every 250 ms, and sets
the final state at the end; a message left streaming by a crash is marked interrupted
when the history is next opened.

The active path of the last few conversations shown is cached: a send reads it again
(for the context) and must not rebuild 2,000 messages each time. Every cache entry
carries the Database.change_stamp() it is valid for; this store's own writes patch
the entry (append, state, a new leaf) and re-stamp it, and any other write, a
rollback or a commit from another connection makes it stale, so it is rebuilt.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from client.store.conversations.search_text import fts_phrase, like_pattern
from client.store.db import Database


class MessageState(StrEnum):
    STREAMING = "streaming"
    COMPLETE = "complete"
    STOPPED = "stopped"
    INTERRUPTED = "interrupted"
    FAILED = "failed"

    @classmethod
    def for_outcome(cls, outcome: str) -> MessageState:
        """The stored state for a session outcome (client.services.chat.session_events.Outcome)."""
        if outcome in (cls.COMPLETE, cls.STOPPED, cls.INTERRUPTED):
            return cls(outcome)
        return cls.FAILED  # failed, unreachable, timed_out: nothing or little arrived


ROLES = ("system", "user", "assistant")
INTERRUPTED_BY_EXIT = "Tachy closed while this answer was arriving; the text so far is kept."


@dataclass(frozen=True, slots=True)
class Conversation:
    id: int
    title: str
    created_at: float
    updated_at: float
    server: str | None = None
    model: str | None = None
    deleted_at: float | None = None


@dataclass(frozen=True, slots=True)
class StoredMessage:
    id: int
    conversation_id: int
    parent_id: int | None
    role: str
    content: str
    thinking: str
    state: MessageState
    active: bool
    created_at: float
    server: str | None = None
    model: str | None = None  # after a cascade's fallback, the model that answered
    error_message: str = ""
    route: str | None = None  # a cascade's "fast" or "strong"; None without one


_MESSAGE_COLUMNS = (
    "id, conversation_id, parent_id, role, content, thinking, state, active, created_at, "
    "server, model, error_message, route"
)
_PATH_COLUMNS = ", ".join("m." + c for c in _MESSAGE_COLUMNS.split(", "))
CACHED_PATHS = 4  # conversations whose active path is kept in memory
_CONVERSATION_COLUMNS = "id, title, created_at, updated_at, server, model, deleted_at"


_STATES = {state.value: state for state in MessageState}


def _message(row: sqlite3.Row) -> StoredMessage:
    # Positional and without enum lookups: opening a 2,000-message chat builds 2,000.
    id_, conversation_id, parent_id, role, content, thinking, state, active, *rest = row
    head = (id_, conversation_id, parent_id, role, content, thinking)
    return StoredMessage(*head, _STATES[state], active == 1, *rest)


@dataclass(slots=True)
class _CachedPath:
    stamp: tuple[int, int, int]
    messages: list[StoredMessage]
    positions: dict[int, int]  # message id -> index in messages


def _conversation(row: sqlite3.Row) -> Conversation:
    return Conversation(*row)


class HistoryStore:
    """Conversations and messages in one Database.

    Opening it marks messages left streaming by a crash as interrupted, so make one
    per app start (or pass recover=False): a second one would interrupt live streams.
    """

    def __init__(self, db: Database, *, recover: bool = True) -> None:
        self.db = db
        self._paths: OrderedDict[int, _CachedPath] = OrderedDict()  # by conversation id
        self.recovered: list[int] = self.recover_interrupted() if recover else []

    # ---- conversations --------------------------------------------------------------

    def create_conversation(
        self, title: str = "", *, server: str | None = None, model: str | None = None
    ) -> Conversation:
        now = self.db.clock()
        cursor = self.db.execute(
            "INSERT INTO conversations (title, created_at, updated_at, server, model) "
            "VALUES (?, ?, ?, ?, ?)",
            (title, now, now, server, model),
        )
        assert cursor.lastrowid is not None
        return Conversation(cursor.lastrowid, title, now, now, server, model)

    def get_conversation(self, conversation_id: int) -> Conversation | None:
        rows = self.db.query(
            f"SELECT {_CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)
        )
        return _conversation(rows[0]) if rows else None

    def rename(self, conversation_id: int, title: str) -> None:
        self._change_conversation(
            "UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id)
        )

    def soft_delete(self, conversation_id: int) -> None:
        """Hide it from the list; `restore` undoes this, `purge` makes it final."""
        self._change_conversation(
            "UPDATE conversations SET deleted_at = ? WHERE id = ?",
            (self.db.clock(), conversation_id),
        )

    def restore(self, conversation_id: int) -> None:
        self._change_conversation(
            "UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,)
        )

    def purge(self, conversation_id: int) -> None:
        """Delete it and its messages for good (their metrics stay, unlinked)."""
        self.db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def purge_deleted(self, deleted_before: float) -> int:
        """Purge conversations soft-deleted before this unix time; returns how many."""
        cursor = self.db.execute(
            "DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at < ?",
            (deleted_before,),
        )
        return cursor.rowcount

    def list_conversations(
        self, search: str | None = None, *, deleted: bool = False, limit: int | None = None
    ) -> list[Conversation]:
        """Most recently updated first. `search` matches titles and message text as a
        case-insensitive substring, every character literal (quotes, %, _ ...)."""
        where = "deleted_at IS NOT NULL" if deleted else "deleted_at IS NULL"
        needle = (search or "").strip()
        params: dict[str, Any] = {"like": like_pattern(needle), "phrase": fts_phrase(needle)}
        if needle:
            where += f" AND (title LIKE :like ESCAPE '\\' OR id IN ({self._matching_sql(needle)}))"
        sql = f"SELECT {_CONVERSATION_COLUMNS} FROM conversations WHERE {where} "
        sql += "ORDER BY updated_at DESC, id DESC"
        if limit is not None:
            sql += " LIMIT :limit"
            params["limit"] = limit
        return [_conversation(row) for row in self.db.query(sql, params)]

    def _matching_sql(self, needle: str) -> str:
        # A trigram index cannot answer fewer than three characters: LIKE scans then.
        if self.db.has_search_index and len(needle) >= 3:
            # Streaming messages are not indexed yet; LIKE covers them (they are few).
            return (
                "SELECT conversation_id FROM messages WHERE id IN "
                "(SELECT rowid FROM message_search WHERE message_search MATCH :phrase) "
                "UNION SELECT conversation_id FROM messages "
                "WHERE state = 'streaming' AND content LIKE :like ESCAPE '\\'"
            )
        return "SELECT conversation_id FROM messages WHERE content LIKE :like ESCAPE '\\'"

    def _change_conversation(self, sql: str, params: tuple[Any, ...]) -> None:
        if self.db.execute(sql, params).rowcount != 1:
            raise KeyError(f"no conversation {params[-1]}")

    # ---- messages -------------------------------------------------------------------

    def add_message(
        self,
        conversation_id: int,
        role: str,
        content: str = "",
        *,
        parent_id: int | None = None,
        thinking: str = "",
        state: MessageState | str = MessageState.COMPLETE,
        server: str | None = None,
        model: str | None = None,
        error_message: str = "",
        route: str | None = None,
    ) -> StoredMessage:
        """Add a message under `parent_id` (None: a root) and make it the active one
        among its siblings, so it is on the active path. A second child of the same
        parent is a branch: regenerate (assistant) or an edited question (user)."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {role!r}")
        state = MessageState(state)
        now = self.db.clock()
        with self.db.transaction() as conn:
            before = self.db.change_stamp()
            leaf = self._leaf_and_check(conn, conversation_id, parent_id)
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, thinking, "
                "state, active, created_at, server, model, error_message, route) "
                "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)",
                (conversation_id, parent_id, role, content, thinking, state.value, now,
                 server, model, error_message, route),
            )  # fmt: skip
            message_id = cursor.lastrowid
            assert message_id is not None
            if parent_id != leaf:
                # A branch (regenerate, edited question): switch its siblings off and
                # its ancestors on. Appending to the shown leaf needs none of that.
                self._activate(conn, message_id)
            conn.execute(
                "UPDATE conversations SET updated_at = ?, server = coalesce(?, server), "
                "model = coalesce(?, model), active_leaf_id = ? WHERE id = ?",
                (now, server, model, message_id, conversation_id),
            )
            head = (message_id, conversation_id, parent_id, role, content, thinking)
            message = StoredMessage(*head, state, True, now, server, model, error_message, route)
            self._extend_cached_path(before, message, parent_id == leaf)
        return message

    def _leaf_and_check(
        self, conn: sqlite3.Connection, conversation_id: int, parent_id: int | None
    ) -> int | None:
        """The conversation's active leaf; raises when the parent is not in it."""
        row = conn.execute(
            "SELECT active_leaf_id FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if row is None:
            raise KeyError(f"no conversation {conversation_id}")
        if parent_id is not None:
            parent = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (parent_id,)
            ).fetchone()
            if parent is None or parent[0] != conversation_id:
                raise ValueError(f"message {parent_id} is not in conversation {conversation_id}")
        return row[0]

    def append_text(self, message_id: int, text: str = "", thinking: str = "") -> None:
        """Append streamed text (and reasoning) to a message: cost is the new text only."""
        if not text and not thinking:
            return
        self._update_message(
            message_id,
            "content = content || ?, thinking = thinking || ?",
            (text, thinking),
            lambda m: dataclasses.replace(
                m, content=m.content + text, thinking=m.thinking + thinking
            ),
        )

    def set_state(
        self, message_id: int, state: MessageState | str, error_message: str | None = None
    ) -> None:
        """Set the state; error_message None keeps the stored one, "" clears it."""
        new_state = MessageState(state)
        self._update_message(
            message_id,
            "state = ?, error_message = coalesce(?, error_message)",
            (new_state.value, error_message),
            lambda m: dataclasses.replace(
                m,
                state=new_state,
                error_message=m.error_message if error_message is None else error_message,
            ),
        )

    def set_answerer(
        self, message_id: int, server: str | None, model: str, route: str | None
    ) -> None:
        """Name who wrote an answer: after a cascade's fallback, not the model asked."""
        self._update_message(
            message_id,
            "server = ?, model = ?, route = ?",
            (server, model, route),
            lambda m: dataclasses.replace(m, server=server, model=model, route=route),
        )

    def recover_interrupted(self) -> list[int]:
        """Mark messages left streaming (the app was killed) as interrupted."""
        with self.db.transaction() as conn:
            ids = [
                row[0] for row in conn.execute("SELECT id FROM messages WHERE state = 'streaming'")
            ]
            conn.execute(
                "UPDATE messages SET state = 'interrupted', error_message = CASE "
                "WHEN error_message = '' THEN ? ELSE error_message END "
                "WHERE state = 'streaming'",
                (INTERRUPTED_BY_EXIT,),
            )
        return ids

    def get_message(self, message_id: int) -> StoredMessage | None:
        rows = self.db.query(f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,))
        return _message(rows[0]) if rows else None

    def siblings(self, message_id: int) -> list[StoredMessage]:
        """The message and the other versions beside it (same parent), oldest first."""
        # Two indexed lookups: the message, then its parent's children (or the roots).
        rows = self.db.query(
            f"SELECT {_PATH_COLUMNS} FROM messages AS me JOIN messages AS m"
            " ON m.conversation_id = me.conversation_id AND m.parent_id IS me.parent_id"
            " WHERE me.id = ? ORDER BY m.id",
            (message_id,),
        )
        return [_message(row) for row in rows]

    def versions(self, conversation_id: int) -> dict[int, tuple[int, int]]:
        """For every message that has other versions beside it (regenerated answers,
        edited questions): message id -> (its position from 1, how many versions).
        One query for the whole conversation, instead of `siblings` per message."""
        rows = self.db.query(
            "SELECT id, row_number() OVER w, count(*) OVER w FROM messages"
            " WHERE conversation_id = ?1 AND coalesce(parent_id, 0) IN (SELECT"
            "  coalesce(parent_id, 0) FROM messages WHERE conversation_id = ?1"
            "  GROUP BY coalesce(parent_id, 0) HAVING count(*) > 1)"
            " WINDOW w AS (PARTITION BY coalesce(parent_id, 0) ORDER BY id"
            "  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
            (conversation_id,),
        )
        return {row[0]: (row[1], row[2]) for row in rows}

    def set_active(self, message_id: int) -> None:
        """Show this version: it and its ancestors become active among their siblings."""
        with self.db.transaction() as conn:
            conversation_id = self._activate(conn, message_id)
            leaf = conn.execute(
                "WITH RECURSIVE down(id, depth) AS (SELECT ?1, 0 UNION ALL"
                " SELECT m.id, down.depth + 1 FROM messages m JOIN down"
                "  ON m.conversation_id = ?2 AND m.parent_id = down.id AND m.active = 1)"
                " SELECT id FROM down ORDER BY depth DESC LIMIT 1",
                (message_id, conversation_id),
            ).fetchone()[0]
            conn.execute(
                "UPDATE conversations SET active_leaf_id = ? WHERE id = ?",
                (leaf, conversation_id),
            )

    def _activate(self, conn: sqlite3.Connection, message_id: int) -> int:
        """Make the message and its ancestors active; returns its conversation id."""
        ancestors = conn.execute(
            "WITH RECURSIVE up(id, parent_id, conversation_id, active) AS ("
            " SELECT id, parent_id, conversation_id, active FROM messages WHERE id = ?"
            " UNION ALL SELECT m.id, m.parent_id, m.conversation_id, m.active FROM messages m"
            " JOIN up ON m.id = up.parent_id) SELECT * FROM up",
            (message_id,),
        ).fetchall()
        if not ancestors:
            raise KeyError(f"no message {message_id}")
        for depth, (node_id, parent_id, conversation_id, active) in enumerate(ancestors):
            # An ancestor already active needs nothing; the message itself may be new
            # (inserted active), so its siblings are always switched off.
            if depth > 0 and active:
                continue
            conn.execute(
                "UPDATE messages SET active = (id = ?) WHERE conversation_id = ? "
                "AND parent_id IS ? AND active != (id = ?)",
                (node_id, conversation_id, parent_id, node_id),
            )
        return int(ancestors[0][2])

    def active_path(self, conversation_id: int) -> list[StoredMessage]:
        """The messages shown: from the active root down the active children to a leaf.

        Cached per conversation (see the module docstring): reading it again after a
        send, or while nothing changed, costs a copy of the list, not a query."""
        with self.db.lock:
            stamp = self.db.change_stamp()
            cached = self._paths.get(conversation_id)
            if cached is None or cached.stamp != stamp:
                messages = self._read_path(conversation_id)
                positions = {message.id: n for n, message in enumerate(messages)}
                cached = _CachedPath(stamp, messages, positions)
                self._paths[conversation_id] = cached
                while len(self._paths) > CACHED_PATHS:
                    self._paths.popitem(last=False)
            self._paths.move_to_end(conversation_id)
            return list(cached.messages)

    def _read_path(self, conversation_id: int) -> list[StoredMessage]:
        # Up from the stored active leaf through parent_id: one primary-key lookup per
        # message, no search among siblings.
        rows = self.db.query(
            "WITH RECURSIVE up(id, depth) AS ("
            " SELECT active_leaf_id, 0 FROM conversations"
            "  WHERE id = ?1 AND active_leaf_id IS NOT NULL"
            " UNION ALL SELECT m.parent_id, up.depth + 1 FROM up"
            "  JOIN messages AS m ON m.id = up.id WHERE m.parent_id IS NOT NULL)"
            f" SELECT {_PATH_COLUMNS} FROM up JOIN messages AS m ON m.id = up.id"
            " WHERE m.conversation_id = ?1 ORDER BY up.depth DESC",
            (conversation_id,),
        )
        if not rows:
            # No leaf recorded (an empty chat, or rows written by hand): walk down the
            # active children from the root instead.
            rows = self.db.query(
                "WITH RECURSIVE path(id, depth) AS ("
                " SELECT id, 0 FROM messages"
                "  WHERE conversation_id = ?1 AND parent_id IS NULL AND active = 1"
                " UNION ALL SELECT m.id, path.depth + 1 FROM messages m JOIN path"
                "  ON m.conversation_id = ?1 AND m.parent_id = path.id AND m.active = 1)"
                f" SELECT {_PATH_COLUMNS} FROM path JOIN messages m ON m.id = path.id"
                " ORDER BY path.depth",
                (conversation_id,),
            )
        return [_message(row) for row in rows]

    def _update_message(
        self,
        message_id: int,
        assignments: str,
        values: tuple[Any, ...],
        change: Callable[[StoredMessage], StoredMessage],
    ) -> None:
        """UPDATE one message (assignments: "column = ?, ..." for values) and the same
        change in the cached paths; KeyError when there is no such message."""
        with self.db.lock:
            before = self.db.change_stamp()
            cursor = self.db.execute(
                f"UPDATE messages SET {assignments} WHERE id = ?", (*values, message_id)
            )
            if cursor.rowcount != 1:
                raise KeyError(f"no message {message_id}")
            self._patch_cached(before, message_id, change)

    def _patch_cached(
        self,
        before: tuple[int, int, int],
        message_id: int,
        change: Callable[[StoredMessage], StoredMessage],
    ) -> None:
        """After this store's own one-message write: patch and re-stamp the cached
        paths that were current just before it; drop the others (stale)."""
        after = self.db.change_stamp()
        for conversation_id, cached in list(self._paths.items()):
            if cached.stamp != before:
                del self._paths[conversation_id]
                continue
            cached.stamp = after
            position = cached.positions.get(message_id)
            if position is not None:
                cached.messages[position] = change(cached.messages[position])

    def _extend_cached_path(
        self, before: tuple[int, int, int], message: StoredMessage, on_leaf: bool
    ) -> None:
        """After add_message: a message added under the shown leaf extends the cached
        path; a branch makes that conversation's path stale."""
        cached = self._paths.get(message.conversation_id)
        last = cached.messages[-1].id if cached and cached.messages else None
        if cached is not None and not (
            on_leaf and cached.stamp == before and last == message.parent_id
        ):
            del self._paths[message.conversation_id]
        self._patch_cached(before, message.id, lambda m: m)
        cached = self._paths.get(message.conversation_id)
        if cached is not None:
            cached.positions[message.id] = len(cached.messages)
            cached.messages.append(message)

    def active_leaf_id(self, conversation_id: int) -> int | None:
        """The last message shown (the parent for the next message), or None if empty."""
        rows = self.db.query(
            "SELECT active_leaf_id FROM conversations WHERE id = ?", (conversation_id,)
        )
        return rows[0][0] if rows else None
