"""Ollama's own timings, from the final line of /api/chat: durations converted from its
nanoseconds to milliseconds, under its names with `_ms` added."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from client.core.server_timings import ServerPhase, ServerTimings

DURATIONS_NS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
COUNTS = ("prompt_eval_count", "eval_count")


@dataclass(frozen=True, slots=True)
class OllamaTimings(ServerTimings):
    source: ClassVar[str] = "ollama"

    @classmethod
    def from_final_line(cls, obj: dict[str, Any]) -> OllamaTimings:
        values: dict[str, float] = {}
        for name in DURATIONS_NS:
            if _number(obj.get(name)):
                values[f"{name}_ms"] = obj[name] / 1_000_000
        for name in COUNTS:
            if _number(obj.get(name)):
                values[name] = obj[name]
        return cls(values)

    @property
    def load_duration_ms(self) -> float | None:
        return self._number("load_duration_ms")

    @property
    def prompt_eval_duration_ms(self) -> float | None:
        return self._number("prompt_eval_duration_ms")

    @property
    def eval_duration_ms(self) -> float | None:
        return self._number("eval_duration_ms")

    @property
    def prompt_eval_count(self) -> int | None:
        return self._count("prompt_eval_count")

    @property
    def eval_count(self) -> int | None:
        return self._count("eval_count")

    def output_tokens(self) -> int | None:
        return self.eval_count

    def prompt_tokens(self) -> int | None:
        return self.prompt_eval_count

    def prompt_ms(self) -> float | None:
        return self.prompt_eval_duration_ms

    def load_ms(self) -> float | None:
        return self.load_duration_ms

    def first_token_ms(self) -> float | None:
        return (self.load_duration_ms or 0.0) + (self.prompt_eval_duration_ms or 0.0)

    def phases(self) -> tuple[ServerPhase, ...]:
        load, prefill = self.load_duration_ms or 0.0, self.prompt_eval_duration_ms or 0.0
        phases = []
        if load:
            phases.append(ServerPhase("server: model load", -prefill - load, -prefill))
        phases.append(ServerPhase("server: prompt processing", -prefill, 0.0))
        if self.eval_duration_ms is not None:
            phases.append(ServerPhase("server: generation", 0.0, self.eval_duration_ms))
        return tuple(phases)

    def figures(self) -> dict[str, float]:
        figures: dict[str, float] = {}
        if self.load_duration_ms is not None:
            figures["server_load_ms"] = self.load_duration_ms
        if self.prompt_eval_duration_ms is not None:
            figures["server_prompt_ms"] = self.prompt_eval_duration_ms
        count, duration = self.eval_count, self.eval_duration_ms
        if count and duration:
            figures["server_tokens_per_s"] = count / duration * 1000.0
        return figures


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
