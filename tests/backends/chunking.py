"""Feed a decoder the same bytes cut in different places."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from client.backends.stream import Decoder
from client.core.events import DecodedEvent


def feed_in_pieces(decoder: Decoder, data: bytes, cuts: list[int]) -> list[DecodedEvent]:
    events: list[DecodedEvent] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        events.extend(decoder.feed(data[start:cut]))
        start = cut
    events.extend(decoder.close())
    return events


def every_chunking(data: bytes) -> Iterator[list[int]]:
    """Whole, byte by byte, and cut once at every position."""
    yield []
    yield list(range(1, len(data)))
    for cut in range(1, len(data)):
        yield [cut]


def same_for_every_chunking(make: Callable[[], Decoder], data: bytes) -> list[DecodedEvent]:
    """The events, after checking every chunking gives exactly the same ones."""
    expected = feed_in_pieces(make(), data, [])
    for cuts in every_chunking(data):
        assert feed_in_pieces(make(), data, cuts) == expected, cuts
    return expected


def merged_text(events: list[DecodedEvent], kind: str = "answer") -> str:
    return "".join(getattr(e, "text", "") for e in events if getattr(e, "kind", None) == kind)
