"""What a server says about its own work on one request, kept beside the client's clock.

Core names no server: each server kind defines its own type
(client/backends/kinds/<kind>/timings.py) on this base, and answers the neutral
questions below in its own terms. The stored form is `values`, under the server's own
names (durations in milliseconds); `ServerReport.encode()` writes it and the kinds'
registry (client/backends/kinds/registry.py, `decode_report`) reads it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

T = TypeVar("T")

Figures = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ServerPhase:
    """One of the server's own phases for the waterfall, in ms from its first token
    (negative before it); start == end for a moment."""

    label: str  # English, with {figures} to fill (the ui translates it)
    start_ms: float
    end_ms: float
    figures: Figures = ()


@dataclass(frozen=True, slots=True)
class ServerTimings:
    """The base of every kind's timings: the numbers the server sent, by its own names."""

    values: Mapping[str, float] = field(default_factory=dict)
    source: ClassVar[str] = ""  # the kind's name, under which the values are stored

    def encode(self) -> dict[str, float]:
        return dict(self.values)

    def output_tokens(self) -> int | None:
        """The tokens the server counts as generated, when its timings say."""
        return None

    def prompt_tokens(self) -> int | None:
        """The prompt tokens the server computed (its cache's excluded where it says)."""
        return None

    def prompt_ms(self) -> float | None:
        """The server's time processing the prompt."""
        return None

    def cached_tokens(self) -> int | None:
        """The prompt tokens the server took from its cache, when its timings say."""
        return None

    def load_ms(self) -> float | None:
        """The server's time loading the model for this request."""
        return None

    def first_token_ms(self) -> float | None:
        """The server's own time to its first token (None when it cannot tell)."""
        return None

    def phases(self) -> tuple[ServerPhase, ...]:
        """Its phases for the waterfall, around its first token."""
        return ()

    def figures(self) -> dict[str, float]:
        """Its figures in one vocabulary for `tachy bench`: server_load_ms,
        server_prompt_ms, server_ttft_ms, server_queue_ms, server_tpot_ms,
        server_tokens_per_s (decode rate)."""
        return {}

    def drafts(self) -> tuple[int, int] | None:
        """Speculative decoding: (tokens drafted, tokens accepted), when it says."""
        return None

    def _number(self, name: str) -> float | None:
        value = self.values.get(name)
        return float(value) if value is not None else None

    def _count(self, name: str) -> int | None:
        value = self.values.get(name)
        return int(value) if value is not None else None


class ServerReport(Mapping[str, ServerTimings]):
    """A request's server timings, by their kind's name (one, or none, in practice)."""

    __slots__ = ("_by_source",)

    def __init__(self, timings: Iterable[ServerTimings] = ()) -> None:
        self._by_source = {t.source: t for t in timings}

    def __getitem__(self, source: str) -> ServerTimings:
        return self._by_source[source]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_source)

    def __len__(self) -> int:
        return len(self._by_source)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ServerReport):
            return self._by_source == other._by_source
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._by_source.items()))

    def __repr__(self) -> str:
        return f"ServerReport({list(self._by_source.values())!r})"

    def encode(self) -> dict[str, dict[str, float]]:
        """The stored (JSON) form: {kind name: values}."""
        return {source: t.encode() for source, t in self._by_source.items()}

    def output_tokens(self) -> int | None:
        return _first(t.output_tokens() for t in self.values())

    def prompt_tokens(self) -> int | None:
        return _first(t.prompt_tokens() for t in self.values())

    def prompt_ms(self) -> float | None:
        return _first(t.prompt_ms() for t in self.values())

    def load_ms(self) -> float | None:
        return _first(t.load_ms() for t in self.values())

    def figures(self) -> dict[str, float]:
        figures: dict[str, float] = {}
        for timings in self.values():
            figures.update(timings.figures())
        return figures


def _first(answers: Iterable[T | None]) -> T | None:
    return next((answer for answer in answers if answer is not None), None)
