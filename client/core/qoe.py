"""Quality of experience of one streamed answer, after the Andes paper.

Andes (Liu et al., "Andes: Defining and Enhancing Quality-of-Experience in LLM-Based
Text Streaming Services", arXiv 2404.16283) defines a streamed answer's QoE from two
token-delivery curves over time: the *expected* one, set by the first-token wait the
user expects and the pace at which they read (digest) tokens, and the *actual* one,
from when tokens really arrived. A reader never digests faster than the expected pace,
so tokens ahead of it are worth no more than tokens on time: the actual curve is
clipped by the expected one. QoE = S_actual / S_expected, the areas under the clipped
actual curve and under the expected curve, both up to the later of the last token's
arrival and its expected time. 1.0: every token was there by the time the reader
reached it; less: the reader waited, for the first token or between bursts.

Where Tachy differs from the paper:
- The reader is fixed per view (default 6 tokens a second after 1 s): Andes takes
  each request's expected TTFT and pace as given by its application.
- Times count from the request written (this process's clock), not from the user's
  click; each chunk counts one token, and the server's tokens beyond one a chunk
  (several to a chunk) go to the chunks by their characters.
- Thinking text counts like answer text (it is shown, and the server counts it).
The areas are integrated exactly (the actual curve is a staircase, the expected one
a ramp), not sampled.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from client.core.stats import percentile
from client.core.timeline import RequestTimeline

NS_PER_S = 1_000_000_000


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads the answer: the first-token wait they expect and their reading pace."""

    tokens_per_s: float = 6.0
    expected_ttft_s: float = 1.0

    def expected_tokens(self, at_s: float, total: float) -> float:
        """The expected curve: no token before the expected wait, the first one then,
        the rest at the reading pace, up to the answer's length."""
        if at_s < self.expected_ttft_s or total <= 0:
            return 0.0
        return min(total, 1.0 + self.tokens_per_s * (at_s - self.expected_ttft_s))

    def expected_end_s(self, total: float) -> float:
        """When the reader expects to have read the whole answer."""
        return self.expected_ttft_s + max(total - 1.0, 0.0) / self.tokens_per_s


DEFAULT_READER = Reader()


@dataclass(frozen=True, slots=True)
class Arrival:
    """Tokens that reached the reader at one moment (seconds after the request)."""

    at_s: float
    tokens: float


def qoe(arrivals: Sequence[Arrival], reader: Reader = DEFAULT_READER) -> float | None:
    """Andes' QoE of one answer, in [0, 1]; None for an answer with no tokens."""
    steps = sorted((a for a in arrivals if a.tokens > 0), key=lambda a: a.at_s)
    total = sum(a.tokens for a in steps)
    if total <= 0 or reader.tokens_per_s <= 0:
        return None
    end_s = max(steps[-1].at_s, reader.expected_end_s(total))
    expected = _area_under_min(reader, total, float("inf"), 0.0, end_s)
    if expected <= 0:
        return 1.0
    # S_actual = S_expected less where the reader waited (the actual curve under the
    # expected one): only those stretches need the exact split, so a long answer that
    # stays ahead of its reader costs a comparison a chunk.
    waited, have = 0.0, 0.0
    ends = [a.at_s for a in steps[1:]] + [end_s]
    waited += _area_under_min(reader, total, float("inf"), 0.0, steps[0].at_s)
    for step, until in zip(steps, ends, strict=True):
        have += step.tokens
        if have < reader.expected_tokens(until, total):
            waited += _area_under_min(reader, total, float("inf"), step.at_s, until)
            waited -= _area_under_min(reader, total, have, step.at_s, until)
    actual = expected - waited
    return min(actual / expected, 1.0)


def _area_under_min(reader: Reader, total: float, have: float, t0: float, t1: float) -> float:
    """∫ min(have, expected(t)) dt over [t0, t1], exactly: split where the expected
    curve starts, meets `have`, and reaches the whole answer; linear between."""
    if t1 <= t0:
        return 0.0
    cuts = {t0, t1, reader.expected_ttft_s, reader.expected_end_s(total)}
    if have >= 1.0:
        cuts.add(reader.expected_ttft_s + (have - 1.0) / reader.tokens_per_s)
    points = sorted(c for c in cuts if t0 <= c <= t1)
    area = 0.0
    for left, right in itertools.pairwise(points):
        # A piece's integrand is linear once the jump at the expected wait is cut out:
        # sample just inside both ends.
        inside = (right - left) * 1e-9
        a = min(have, reader.expected_tokens(left + inside, total))
        b = min(have, reader.expected_tokens(right - inside, total))
        area += (a + b) / 2.0 * (right - left)
    return area


def arrivals_of(timeline: RequestTimeline, server_tokens: int | None = None) -> list[Arrival]:
    """The timeline's token chunks as arrivals counted from the request written. A
    chunk holds one token at least; with the server's count, the tokens it counts
    beyond one a chunk (several to a chunk: speculative decoding, a batching server)
    go to the chunks by their characters."""
    written = timeline.request_written_ns
    if written is None or not timeline.tokens:
        return []
    stamps = timeline.tokens
    chars = sum(t.chars for t in stamps)
    extra = (server_tokens or 0) - len(stamps)
    per_char = extra / chars if extra > 0 and chars else 0.0
    return [Arrival((t.at_ns - written) / NS_PER_S, 1.0 + t.chars * per_char) for t in stamps]


def timeline_qoe(
    timeline: RequestTimeline, server_tokens: int | None = None, reader: Reader = DEFAULT_READER
) -> float | None:
    """QoE of the answer a timeline recorded (None without tokens)."""
    return qoe(arrivals_of(timeline, server_tokens), reader)


@dataclass(frozen=True, slots=True)
class QoeSpread:
    """QoE over answers: the median and the 5th percentile (the low tail a reader
    remembers, where TTFT's is the high one), with n."""

    n: int  # answers with a QoE (a request that wrote no token has none)
    p50: float | None = None
    p5: float | None = None

    def as_dict(self) -> dict[str, float | int | None]:
        return {"n": self.n, "p50": self.p50, "p5": self.p5}


def qoe_spread(qoes: Iterable[float | None]) -> QoeSpread:
    values = sorted(q for q in qoes if q is not None)
    if not values:
        return QoeSpread(0)
    return QoeSpread(len(values), percentile(values, 50), percentile(values, 5))
