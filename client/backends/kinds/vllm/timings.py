"""vLLM's own per-request timings, read the same whichever vLLM sent them.

vLLM 0.32 with --enable-per-request-metrics puts on the usage chunk `metrics:
{time_to_first_token_ms, generation_time_ms, queue_time_ms, mean_itl_ms,
tokens_per_second}` (tokens_per_second is completion tokens over the whole request,
first-token wait included: not a decode rate). Older vLLMs sent wall-clock seconds
taken in the server's process: arrival_time, first_scheduled_time, first_token_time,
time_in_queue, last_token_time / finished_time. Durations only: clocks of two
processes are never compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from client.core.server_timings import ServerPhase, ServerTimings

KIND_NAME = "vllm"


@dataclass(frozen=True, slots=True)
class VllmTimings(ServerTimings):
    source: ClassVar[str] = KIND_NAME

    @property
    def current(self) -> bool:
        return "time_to_first_token_ms" in self.values

    @property
    def ttft_ms(self) -> float | None:
        """Arrival -> first token, the queue included."""
        if self.current:
            return self._number("time_to_first_token_ms")
        return self._seconds_between("arrival_time", "first_token_time")

    @property
    def queue_ms(self) -> float | None:
        """Waiting to be scheduled."""
        name = "queue_time_ms" if self.current else "time_in_queue"
        value = self._number(name)
        return value if value is None or self.current else value * 1000.0

    @property
    def prefill_ms(self) -> float | None:
        """Scheduled -> first token."""
        if self.current:
            ttft, queue = self.ttft_ms, self.queue_ms
            return max(ttft - queue, 0.0) if ttft is not None and queue is not None else None
        return self._seconds_between("first_scheduled_time", "first_token_time")

    @property
    def decode_ms(self) -> float | None:
        """First token -> last token."""
        if self.current:
            return self._number("generation_time_ms")
        last = "last_token_time" if "last_token_time" in self.values else "finished_time"
        return self._seconds_between("first_token_time", last)

    @property
    def itl_ms(self) -> float | None:
        """The server's mean gap between tokens."""
        return self._number("mean_itl_ms")

    def first_token_ms(self) -> float | None:
        return self.ttft_ms

    def phases(self) -> tuple[ServerPhase, ...]:
        ttft = self.ttft_ms
        if ttft is None:
            return ()
        phases = []
        if self.queue_ms is not None:
            phases.append(ServerPhase("server: queue", -ttft, -ttft + self.queue_ms))
        if self.prefill_ms is not None:
            phases.append(ServerPhase("server: prompt processing", -self.prefill_ms, 0.0))
        if self.decode_ms is not None:
            phases.append(ServerPhase("server: generation", 0.0, self.decode_ms))
        return tuple(phases)

    def figures(self) -> dict[str, float]:
        """Its TTFT, queue, prefill and mean gap; its decode rate from that gap (its own
        tokens_per_second spans the first-token wait too, unlike the others' rates)."""
        if self.ttft_ms is None:
            return {}
        figures = {"server_ttft_ms": self.ttft_ms}
        if self.queue_ms is not None:
            figures["server_queue_ms"] = self.queue_ms
        if self.prefill_ms is not None:
            figures["server_prompt_ms"] = self.prefill_ms
        if self.itl_ms:
            figures["server_tpot_ms"] = self.itl_ms
            figures["server_tokens_per_s"] = 1000.0 / self.itl_ms
        return figures

    def _seconds_between(self, start: str, end: str) -> float | None:
        begun, ended = self._number(start), self._number(end)
        return (ended - begun) * 1000.0 if begun is not None and ended is not None else None
