"""What the generation reads of a stream, forwarded to the one answering now: a
cascade's fallback (services/cascade/fallback.py) and the loading retry
(services/chat/stream_opener.py) each put a stream of their own in front of the route's."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from client.core.events import Done, Failed, ServerTimings, Usage
from client.core.metrics import RequestMetrics
from client.core.timeline import RequestTimeline


class AnswerParts(Protocol):
    timeline: RequestTimeline

    @property
    def usage(self) -> Usage | None: ...

    @property
    def server_timings(self) -> list[ServerTimings]: ...

    @property
    def outcome(self) -> Done | Failed | None: ...

    @property
    def text(self) -> str: ...

    def metrics(self) -> RequestMetrics: ...


S = TypeVar("S", bound=AnswerParts)


class Forwarding(Generic[S]):
    """Set `_current` to the stream asked now; the figures are read from it."""

    _current: S

    @property
    def current(self) -> S:
        """The stream asked now (a pool's answer names its server)."""
        return self._current

    @property
    def timeline(self) -> RequestTimeline:
        return self._current.timeline

    @timeline.setter
    def timeline(self, timeline: RequestTimeline) -> None:
        self._current.timeline = timeline

    @property
    def usage(self) -> Usage | None:
        return self._current.usage

    @property
    def server_timings(self) -> list[ServerTimings]:
        return self._current.server_timings

    @property
    def outcome(self) -> Done | Failed | None:
        return self._current.outcome

    @property
    def text(self) -> str:
        return self._current.text

    def metrics(self) -> RequestMetrics:
        return self._current.metrics()
