"""Waiting, in the terminal, for a server that is still loading its model.

`tachy chat`, `tachy bench` and `tachy models` read the server's model list first; a
llama.cpp server answers 503 "Loading model" until its model is in memory. They say
"Loading the model…" on stderr once, ask again until it is ready (within the limit they
were given), then say how long it took and go on.
"""

from __future__ import annotations

import time

from client.backends.base import Backend, ModelInfo
from client.backends.errors import ModelLoading, TachyError
from client.backends.loading import while_loading
from client.cli.chat_common import say

LOADING_LINE = "Loading the model…"
LOAD_WAIT_S = 60.0  # commands without a first-token limit of their own wait this long


class ModelWait:
    """One wait for a backend's model list; `waited_s` is what it cost."""

    def __init__(self) -> None:
        self.waited_s = 0.0
        self.loading = False

    async def models(
        self, backend: Backend, within_s: float | None, needed: bool = True
    ) -> list[ModelInfo] | None:
        """The list once the model is loaded. When not needed (a model was named), a list
        the server cannot give is no error: None; a model still loading past within_s is."""
        started = time.monotonic()
        try:
            models = await while_loading(backend.list_models, within_s, self._tell)
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
