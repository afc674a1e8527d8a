"""Writes that wait for room: a full disk (or a folder gone read-only) never loses text.

When the final write of an answer fails for lack of room, it is kept here and tried
again, with a growing pause, until it succeeds; the answer stays on screen meanwhile
and the generation ends as usual. Listeners (the window's banner) hear a reason when
saving runs into trouble and None once every waiting write went through.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from client.store.db import Database
from client.store.recovery import is_storage_error

log = logging.getLogger(__name__)

RETRY_PAUSES_S = (0.25, 0.5, 1.0, 2.0, 5.0)  # then every 5 s while the app runs

T = TypeVar("T")
Listener = Callable[[str | None], None]
_listeners: list[Listener] = []
_waiting: set[asyncio.Task[None]] = set()
_troubled = False


def add_listener(listener: Listener) -> None:
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def is_saving_trouble(error: BaseException) -> bool:
    """The disk or the folder refused (full, read-only, I/O), not a bug or bad data."""
    if isinstance(error, sqlite3.DatabaseError):
        return is_storage_error(error)
    return isinstance(error, OSError)


def report_trouble(error: BaseException) -> None:
    """Tell the listeners once per spell of trouble (a write that will be retried)."""
    global _troubled
    if _troubled:
        return
    _troubled = True
    log.warning("cannot save right now (%s): keeping the text and trying again", error)
    _tell(str(error))


def report_saved() -> None:
    global _troubled
    if _troubled and not _waiting:
        _troubled = False
        log.info("saving works again: everything kept meanwhile is saved")
        _tell(None)


def _tell(reason: str | None) -> None:
    for listener in list(_listeners):
        try:
            listener(reason)
        except Exception:  # a listener's bug must not stop the saving
            log.exception("a saving listener failed")


def waiting_writes() -> int:
    return len(_waiting)


def save_when_possible(db: Database, fn: Callable[..., Any], *args: Any) -> asyncio.Task[None]:
    """Run `fn(*args)` on the database's thread until it succeeds (kept as a task)."""
    task = asyncio.ensure_future(_keep_trying(db, fn, args))
    _waiting.add(task)
    task.add_done_callback(_done)
    return task


async def run_or_keep(db: Database, fn: Callable[[], T]) -> T | None:
    """fn() on the database's thread; when the disk refuses, it is kept and retried
    (save_when_possible) and None is returned at once."""
    try:
        return await db.run(fn)
    except Exception as error:
        if not is_saving_trouble(error):
            raise
        report_trouble(error)
        save_when_possible(db, fn)
        return None


def _done(task: asyncio.Task[None]) -> None:
    _waiting.discard(task)
    report_saved()


async def _keep_trying(db: Database, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    attempt = 0
    while True:
        pause = RETRY_PAUSES_S[min(attempt, len(RETRY_PAUSES_S) - 1)]
        await asyncio.sleep(pause)
        attempt += 1
        try:
            await db.run(fn, *args)
        except (sqlite3.ProgrammingError, RuntimeError):  # quitting: database or loop closed
            log.error("quit before there was room to save an answer; it was not saved")
            return
        except Exception as error:
            if not is_saving_trouble(error):
                log.exception("a waiting write failed for good")
                return
            report_trouble(error)
            continue
        log.info("a waiting write went through after %d attempts", attempt)
        return
