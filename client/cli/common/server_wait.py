"""Waiting, in the terminal, for a server that is still loading its model.

`tachy chat`, `tachy bench` and `tachy models` read the server's model list first; a
llama.cpp server answers 503 "Loading model" until its model is in memory (a recent one
lists its models meanwhile, and says it on /health). They say "Loading the model…" (the
loading state's words, client/services/chat/turn_state.py) on stderr once, ask again
until it is ready (within the limit they were given), then say how long it took and go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from client.backends.base import Backend, ModelInfo
from client.backends.errors import ModelLoading, TachyError
from client.backends.loading import while_loading
from client.cli.common.chat_common import loading_line, say
from client.services.servers.readiness import listed_when_ready

LOADING_LINE = loading_line()
LOAD_WAIT_S = 60.0  # commands without a first-token limit of their own wait this long


class ModelWait:
    """One wait for a backend's model list; `waited_s` is what it cost."""

    def __init__(self, on_loading: Callable[[], None] | None = None) -> None:
        self.waited_s = 0.0
        self.loading = False
        self._on_loading = on_loading  # besides the line on stderr (--json's state line)

    async def models(
        self, backend: Backend, within_s: float | None, needed: bool = True
    ) -> list[ModelInfo] | None:
        """The list once the model is loaded. When not needed (a model was named), a list
        the server cannot give is no error: None; a model still loading past within_s is."""
        started = time.monotonic()
        try:
            models = await while_loading(lambda: listed_when_ready(backend), within_s, self._tell)
        except ModelLoading:
            raise
        except TachyError:
            if needed:
                raise
            return None
        finally:
            self.waited_s = time.monotonic() - started
        if self.loading:
            say(f"The model is loaded ({self.waited_s:.1f} s).")
        return models

    def _tell(self, _: ModelLoading) -> None:
        self.loading = True
        say(LOADING_LINE)
        if self._on_loading is not None:
            self._on_loading()
