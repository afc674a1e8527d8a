"""The figures under an answer, for the whole message: a continued answer is written by
two requests or more (each stored as its own metrics record), and its footer describes
all of its text, not only the last part.

    whole_answer([first_request, its_continuation])
    # time to first token and tier: the first request's (the answer's first token);
    # tokens: all of them; tok/s: all tokens over all decode time; parts: 2;
    # what type-ahead saved: the first request's (the question's)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from client.backends.kinds.registry import kind_named
from client.core.metrics import TYPE_AHEAD_SOURCE, RequestMetrics
from client.services.chat.session_events import Stage
from client.services.tools.call_records import ToolTime, tool_time
from client.store.metrics_store import MetricsRecord
from client.store.stage_records import StageRecord, decode_stages


class AnswerFigures(Protocol):
    """What an answer's footer says: a request's figures, or a WholeAnswer's."""

    @property
    def ttft_ms(self) -> float | None: ...
    @property
    def tokens_per_s(self) -> float | None: ...
    @property
    def output_tokens(self) -> int | None: ...
    @property
    def tier(self) -> str | None: ...
    @property
    def qoe(self) -> float | None: ...


class RequestFigures(AnswerFigures, Protocol):
    """A request's figures: a live RequestMetrics or a stored MetricsRecord."""

    @property
    def tpot_ms(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class QuestionRead:
    """What type-ahead saved the question's request (client/services/warming/type_ahead.py),
    kept with its server timings: the prompt tokens the server read while it was typed,
    and about how long reading them would have taken (None: no rate was measured)."""

    tokens: int
    saved_ms: float | None = None


def question_read(request: RequestFigures) -> QuestionRead | None:
    """A live request's (RequestMetrics) or a stored one's (MetricsRecord)."""
    values: Mapping[str, float] = {}
    if isinstance(request, RequestMetrics):
        timings = request.server.get(TYPE_AHEAD_SOURCE)
        values = timings.values if timings is not None else {}
    elif isinstance(request, MetricsRecord):
        values = request.server_timings.get(TYPE_AHEAD_SOURCE, {})
    tokens = values.get("tokens")
    return QuestionRead(int(tokens), values.get("saved_ms")) if tokens else None


@dataclass(frozen=True, slots=True)
class WholeAnswer:
    ttft_ms: float | None = None
    tokens_per_s: float | None = None
    output_tokens: int | None = None
    tier: str | None = None
    parts: int = 1  # the requests that wrote some of it
    qoe: float | None = None  # one request's answer only (client/core/qoe.py)
    question_read: QuestionRead | None = None  # the first request's (the question's)


def whole_answer(requests: Sequence[RequestFigures]) -> WholeAnswer | None:
    """The figures of an answer written by these requests, oldest first; None for none."""
    if not requests:
        return None
    writing = [r for r in requests if r.output_tokens]
    first = next((r for r in requests if r.ttft_ms is not None), requests[0])
    if len(writing) <= 1:
        only = writing[0] if writing else first
        return WholeAnswer(
            first.ttft_ms,
            only.tokens_per_s,
            only.output_tokens,
            first.tier,
            qoe=only.qoe,
            question_read=question_read(requests[0]),
        )
    return WholeAnswer(
        ttft_ms=first.ttft_ms,
        tokens_per_s=_rate(writing),
        output_tokens=sum(r.output_tokens or 0 for r in writing),
        tier=first.tier,
        parts=len(writing),
        question_read=question_read(requests[0]),
    )


def _rate(requests: Sequence[RequestFigures]) -> float | None:
    """Tokens per second over all the decode time (each request's TPOT x its gaps)."""
    gaps = decode_ms = 0.0
    for request in requests:
        count = request.output_tokens or 0
        if request.tpot_ms is not None and count > 1:
            gaps += count - 1
            decode_ms += request.tpot_ms * (count - 1)
    return 1000 * gaps / decode_ms if decode_ms > 0 else None


LOADING_SHOWN_MS = 50.0  # a shorter load reads "0.0 s": the model was as good as loaded


def loading_ms(stages: object) -> float | None:
    """How long the request waited in the loading stage (its stages as stored, read by
    client/store/stage_records.py); None when it did not load a model, or loaded it in
    less than LOADING_SHOWN_MS."""
    loads = [r.ms for r in decode_stages(stages) if r.stage == Stage.LOADING.value]
    total = sum(ms for ms in loads if ms is not None and ms > 0)
    loaded = any(ms is not None and ms > 0 for ms in loads)
    return total if loaded and total >= LOADING_SHOWN_MS else None


def via_router(requests: Sequence[MetricsRecord]) -> bool:
    """Whether a router gave the stored answer: its kind's mark is kept among the
    request's server timings (a router does not say which worker answered)."""
    kinds = (kind_named(name) for request in requests for name in request.server_timings)
    return any(kind is not None and kind.hides_worker for kind in kinds)


class StageRecorded(Protocol):
    """A stored request (MetricsRecord) as the share in tools reads it."""

    @property
    def stage_records(self) -> list[StageRecord]: ...


def stored_tool_time(requests: Sequence[StageRecorded]) -> ToolTime | None:
    """A stored answer's time and its share in tools, from the call records kept with
    each request's stages (a Continue's requests added up); None: it called no tool."""
    spent = [t for t in (tool_time(r.stage_records) for r in requests) if t is not None]
    if not spent:
        return None
    whole = sum(t.whole_ms for t in spent)
    return ToolTime(whole, sum(t.tools_ms for t in spent), sum(t.approval_ms for t in spent))
