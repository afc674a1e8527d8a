"""TTFT prediction: how long until the first token, for the draft being typed.

Model: ttft = base overhead + prompt tokens / prefill rate (+ load time when cold).
Both are learned from the current model's recent requests by a least-squares fit of
the relative error (with a small n^2 term once enough sizes were seen: attention
grows with the prompt); the server's own prompt timings (ServerTimings.prompt_ms and
prompt_tokens, where its kind reports them) give the rate while there are too few
requests, and its load_ms measures loads directly. predict() is a few multiplies and
adds, so the composer can call it on every keystroke.

Token counts must be in the same unit on both sides (the caller's counter: the
server tokenizer or the estimate in client.core.budget). Servers keep the previous
prompt in their cache, so pass the tokens the server will actually process
(``tokens_to_process``), not the whole conversation.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from client.core.conversation import ChatMessage
from client.core.metrics import RequestMetrics

WINDOW = 32  # recent requests that shape the fit (the server's speed drifts)
ERROR_WINDOW = 200
LOAD_SEEN_MS = 100.0  # a server's own load time above this was a real load


class ModelState(StrEnum):
    COLD = "cold"  # not in memory: the next request pays for the load
    LOADING = "loading"  # a load is under way (a warm-up or a request)
    WARM = "warm"  # loaded: the next request pays only prompt processing


@dataclass(frozen=True, slots=True)
class Prediction:
    ttft_ms: float
    includes_load: bool = False  # a learned load time is part of ttft_ms
    load_unknown: bool = False  # the model is cold but no load was measured yet

    def label(self) -> str:
        """The composer's line, e.g. "≈ 450 ms to first token"."""
        amount = _readable(self.ttft_ms)
        if self.load_unknown:
            return f"≈ {amount} to first token, after the model loads"
        return f"≈ {amount} to first token"


def _readable(ms: float) -> str:
    if ms < 1000:
        return f"{max(round(ms / 10) * 10, 10):.0f} ms"
    return f"{ms / 1000:.1f} s"


@dataclass(slots=True)
class _Curve:
    """ttft = overhead + per_token * n + per_token_sq * n^2 (attention grows with n)."""

    overhead_ms: float
    ms_per_token: float
    ms_per_token_sq: float = 0.0

    def at(self, tokens: int) -> float:
        return self.overhead_ms + tokens * (self.ms_per_token + self.ms_per_token_sq * tokens)


class TtftPredictor:
    """Learns one model's prefill rate, base overhead and load time."""

    def __init__(self, window: int = WINDOW) -> None:
        self._warm: deque[tuple[int, float]] = deque(maxlen=window)
        self._server_prefill: deque[tuple[float, float]] = deque(maxlen=window)
        self._loads: deque[float] = deque(maxlen=8)
        self._errors: deque[float] = deque(maxlen=ERROR_WINDOW)
        self._line: _Curve | None = None

    # -- what the composer calls on every keystroke --------------------------
    def predict(
        self,
        prompt_tokens: int,
        state: ModelState | str | None = ModelState.WARM,
        load_elapsed_ms: float = 0.0,
    ) -> Prediction | None:
        """None until one request of this model has been seen."""
        if self._line is None:
            return None
        warm = max(self._line.at(max(prompt_tokens, 0)), 0.0)
        if state not in (ModelState.COLD, ModelState.LOADING):
            return Prediction(warm)
        load = self.load_ms
        if load is None:
            return Prediction(warm, load_unknown=True)
        if state == ModelState.LOADING:
            load = max(load - load_elapsed_ms, 0.0)
        return Prediction(warm + load, includes_load=True)

    # -- learning ------------------------------------------------------------
    def observe(
        self,
        prompt_tokens: int,
        ttft_ms: float,
        *,
        cold: bool = False,
        server_prompt_ms: float | None = None,
        server_prompt_tokens: int | None = None,
        server_load_ms: float | None = None,
        predicted_ms: float | None = None,
    ) -> None:
        """One finished request. predicted_ms is what was shown before it was sent."""
        if predicted_ms is not None and ttft_ms > 0:
            self._errors.append(abs(predicted_ms - ttft_ms) / ttft_ms)
        if server_prompt_ms and server_prompt_tokens:
            self._server_prefill.append((float(server_prompt_tokens), server_prompt_ms))
        loaded = cold or (server_load_ms is not None and server_load_ms > LOAD_SEEN_MS)
        if loaded and server_load_ms is not None and server_load_ms > LOAD_SEEN_MS:
            # The server timed its load: the rest of the wait is a warm sample.
            self._loads.append(server_load_ms)
            self._add_warm(prompt_tokens, max(ttft_ms - server_load_ms, 0.0))
        elif loaded:
            if self._line is not None:
                self._loads.append(max(ttft_ms - self._line.at(prompt_tokens), 0.0))
        else:
            self._add_warm(prompt_tokens, ttft_ms)

    def observe_metrics(
        self,
        metrics: RequestMetrics,
        prompt_tokens: int | None = None,
        *,
        cold: bool = False,
        predicted_ms: float | None = None,
    ) -> None:
        """Learn from a request's metrics; prompt_tokens in the caller's unit wins
        over the server's count so predictions and observations match."""
        tokens = prompt_tokens if prompt_tokens is not None else metrics.prompt_tokens
        if metrics.ttft_ms is None or tokens is None:
            return
        server = metrics.server
        self.observe(
            tokens,
            metrics.ttft_ms,
            cold=cold,
            server_prompt_ms=server.prompt_ms() or None,
            server_prompt_tokens=server.prompt_tokens() or None,
            server_load_ms=server.load_ms(),
            predicted_ms=predicted_ms,
        )

    # -- kept across restarts ------------------------------------------------
    def learned(self) -> dict[str, list[Any]]:
        """What the fit rests on, JSON-ready: stored per model, so the first draft
        after a restart is predicted from the last session's requests."""
        return {
            "warm": [[tokens, round(ms, 2)] for tokens, ms in self._warm],
            "server_prefill": [[tokens, round(ms, 2)] for tokens, ms in self._server_prefill],
            "loads": [round(ms, 2) for ms in self._loads],
        }

    def restore(self, saved: Any) -> None:
        """Start from learned() of an earlier session; malformed entries (a damaged
        or hand-edited settings row) are skipped, never raised."""
        if not isinstance(saved, dict):
            return
        for tokens, ms in _pairs(saved.get("server_prefill")):
            self._server_prefill.append((tokens, ms))
        for ms in _numbers(saved.get("loads")):
            self._loads.append(ms)
        for tokens, ms in _pairs(saved.get("warm")):
            self._warm.append((int(tokens), ms))
        if self._warm:
            self._line = _fit(list(self._warm), self._server_ms_per_token())

    # -- what the HUD shows ---------------------------------------------------
    @property
    def load_ms(self) -> float | None:
        return statistics.median(self._loads) if self._loads else None

    @property
    def prefill_tokens_per_s(self) -> float | None:
        """Average prompt processing rate for a 1,000-token prompt."""
        if self._line is None:
            return None
        prefill_ms = self._line.at(1000) - self._line.overhead_ms
        return 1000.0 / prefill_ms * 1000.0 if prefill_ms > 0 else None

    @property
    def overhead_ms(self) -> float | None:
        return self._line.overhead_ms if self._line else None

    def median_error_pct(self) -> float | None:
        """Median |predicted - actual| / actual over recent requests, in percent."""
        return statistics.median(self._errors) * 100 if self._errors else None

    @property
    def error_count(self) -> int:
        return len(self._errors)

    def _add_warm(self, tokens: int, ttft_ms: float) -> None:
        self._warm.append((max(tokens, 0), ttft_ms))
        self._line = _fit(list(self._warm), self._server_ms_per_token())

    def _server_ms_per_token(self) -> float | None:
        tokens = sum(n for n, _ in self._server_prefill)
        return sum(ms for _, ms in self._server_prefill) / tokens if tokens else None


def _numbers(values: Any) -> list[float]:
    if not isinstance(values, list):
        return []
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return [float(v) for v in numbers if 0 <= v < 1e9]


def _pairs(values: Any) -> list[tuple[float, float]]:
    if not isinstance(values, list):
        return []
    pairs = [_numbers(v) for v in values if isinstance(v, list) and len(v) == 2]
    return [(x, y) for x, y in (p for p in pairs if len(p) == 2) if y > 0]


def _fit(samples: list[tuple[int, float]], server_ms_per_token: float | None) -> _Curve:
    """The curve through (tokens, ttft) with the smallest *relative* squared error
    (a 30 ms miss matters on a 100 ms prompt, not on a 3 s one), no negative terms,
    and at least one sample more than it has terms (no curve just joins the dots).
    Falls back to the server's prefill rate, then to a rough split."""
    distinct = len({x for x, _ in samples})
    best: tuple[float, _Curve] | None = None
    for terms in _TERM_SETS:
        if distinct < len(terms) + 1:
            continue
        curve = _relative_least_squares(samples, terms)
        if curve is None:
            continue
        error = sum(((curve.at(x) - y) / y) ** 2 for x, y in samples if y > 0)
        if best is None or error < best[0]:
            best = (error, curve)
    if best is not None:
        return best[1]
    if server_ms_per_token is not None:
        overhead = statistics.median(y - server_ms_per_token * x for x, y in samples)
        return _Curve(max(overhead, 0.0), server_ms_per_token)
    # One size seen, no server timings: assume half of it was prompt processing.
    mean_x = sum(x for x, _ in samples) / len(samples)
    mean_y = sum(y for _, y in samples) / len(samples)
    return _Curve(mean_y / 2, mean_y / 2 / mean_x if mean_x else 0.0)


# Which of (overhead, per token, per token squared) a fit may use.
_TERM_SETS = ((0, 1, 2), (0, 1), (1, 2), (1,), (0, 2))
_SCALE = 1000.0  # tokens in thousands keep the normal equations well conditioned


def _relative_least_squares(
    samples: list[tuple[int, float]], terms: tuple[int, ...]
) -> _Curve | None:
    """Least squares of (curve(x) - y) / y over the chosen terms; None when a term
    comes out negative (that curve does not describe a server) or the system is
    singular."""
    size = len(terms)
    matrix = [[0.0] * size for _ in range(size)]
    vector = [0.0] * size
    for x, y in samples:
        if y <= 0:
            continue
        row = [(x / _SCALE) ** power / y for power in terms]
        for i in range(size):
            vector[i] += row[i]  # target y / y = 1
            for j in range(size):
                matrix[i][j] += row[i] * row[j]
    solution = _solve(matrix, vector)
    if solution is None or any(c < 0 for c in solution):
        return None
    coefficients = [0.0, 0.0, 0.0]
    for power, value in zip(terms, solution, strict=True):
        coefficients[power] = value / _SCALE**power
    return _Curve(*coefficients)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting (at most 3x3)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    solution = [0.0] * n
    for r in range(n - 1, -1, -1):
        tail = sum(rows[r][c] * solution[c] for c in range(r + 1, n))
        solution[r] = (rows[r][n] - tail) / rows[r][r]
    return solution


def tokens_to_process(
    sent_before: Sequence[ChatMessage],
    to_send: Sequence[ChatMessage],
    count: Callable[[ChatMessage], int],
) -> int:
    """Tokens the server must process: the messages after the longest common prefix
    with what it saw last time (its prompt cache holds that prefix; the previous
    answer was generated there, so it is cached too)."""
    shared = 0
    for before, now in zip(sent_before, to_send, strict=False):
        if before != now:
            break
        shared += 1
    return sum(count(m) for m in to_send[shared:])
