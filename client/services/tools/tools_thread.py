"""The thread where every MCP session lives, with an asyncio loop of its own.

The SDK runs on anyio and starts subprocesses and HTTP streams; on a loop of its own it
neither shares the window's qasync loop (pipe reads and JSON parsing stay off the GUI
thread) nor depends on what that loop supports. A caller on any loop awaits `run(...)`;
cancelling that await cancels the coroutine here at once (the SDK then sends the server
MCP's cancellation). The thread starts on first use and stops on `close()`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import TypeVar

T = TypeVar("T")
THREAD_NAME = "tachy-tools"


class ToolsThread:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        """The thread's loop, started on first use."""
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=_run_forever, args=(loop,), name=THREAD_NAME, daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    async def run(self, work: Coroutine[object, object, T]) -> T:
        """`work`'s result, run on the tools thread; cancelling this cancels `work`."""
        future = asyncio.run_coroutine_threadsafe(work, self.loop())
        return await asyncio.wrap_future(future)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the loop and wait for the thread (blocking: call it off the loop)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout_s)


def _run_forever(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
