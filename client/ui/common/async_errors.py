"""The one place where exceptions from async slots end up.

Every task the ui starts goes through `spawn`: when it fails, the traceback goes to
the log and the user sees one sentence (a TachyError's own sentence, else a generic
one). Cancellation is normal (Stop) and is not an error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QCoreApplication

from client.services.errors import TachyError
from client.ui.common.error_text import error_text

log = logging.getLogger("tachy.ui")

ErrorSink = Callable[[str], None]
_sinks: list[ErrorSink] = []


def add_error_sink(sink: ErrorSink) -> None:
    """Where sentences for the user go (the main window's status line)."""
    _sinks.append(sink)


def remove_error_sink(sink: ErrorSink) -> None:
    if sink in _sinks:
        _sinks.remove(sink)


def user_sentence(error: BaseException) -> str:
    if isinstance(error, TachyError):
        return error_text(error.user_message)
    return QCoreApplication.translate(
        "Errors", "Something went wrong; the details are in the log. Your text is kept."
    )


def report(error: BaseException, context: str = "") -> None:
    log.error("error in %s", context or "the ui", exc_info=error)
    sentence = user_sentence(error)
    for sink in list(_sinks):
        sink(sentence)


def spawn(coro: Coroutine[Any, Any, Any], name: str = "") -> asyncio.Task[Any]:
    """Start a task whose failure is reported, never lost. Keep it to cancel it."""
    task = asyncio.get_event_loop().create_task(coro, name=name or None)
    task.add_done_callback(_report_failure)
    return task


class KeptTasks:
    """The tasks one owner started and has not seen finish: `spawn` through this and
    `aclose` on quit, so none outlives its owner or runs on a closed backend."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> asyncio.Task[Any]:
        task = spawn(coro, name)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    def __len__(self) -> int:
        return len(self._running)

    async def aclose(self) -> None:
        """Cancel what is still running and wait until it has stopped."""
        running = list(self._running)
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running)


def _report_failure(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        report(error, task.get_name())


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """For asyncio.set_exception_handler: whatever escapes elsewhere is reported too."""
    error = context.get("exception")
    if isinstance(error, BaseException) and not isinstance(error, asyncio.CancelledError):
        report(error, str(context.get("message", "")))
    else:
        log.error("asyncio: %s", context.get("message"))
