"""llama.cpp server's `timings` object, on the last chunk of a stream: prompt_n,
prompt_ms, predicted_n, predicted_ms, predicted_per_second, cache_n, and with
speculative decoding draft_n and draft_n_accepted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from client.core.server_timings import ServerPhase, ServerTimings

KIND_NAME = "llamacpp"
PROMPT_CACHED = "server: prompt {cached} cached + {computed} computed"
DRAFTS_ACCEPTED = "server: {drafted} drafted, {accepted} accepted"


@dataclass(frozen=True, slots=True)
class LlamacppTimings(ServerTimings):
    source: ClassVar[str] = KIND_NAME

    @property
    def prompt_n(self) -> int | None:
        return self._count("prompt_n")

    @property
    def predicted_n(self) -> int | None:
        return self._count("predicted_n")

    @property
    def cache_n(self) -> int | None:
        return self._count("cache_n")

    @property
    def predicted_ms(self) -> float | None:
        return self._number("predicted_ms")

    @property
    def predicted_per_second(self) -> float | None:
        return self._number("predicted_per_second")

    def output_tokens(self) -> int | None:
        return self.predicted_n

    def prompt_tokens(self) -> int | None:
        return self.prompt_n

    def prompt_ms(self) -> float | None:
        return self._number("prompt_ms")

    def cached_tokens(self) -> int | None:
        return self.cache_n

    def first_token_ms(self) -> float | None:
        return self.prompt_ms()

    def drafts(self) -> tuple[int, int] | None:
        drafted = self._count("draft_n")
        return (drafted, self._count("draft_n_accepted") or 0) if drafted is not None else None

    def phases(self) -> tuple[ServerPhase, ...]:
        prompt = self.prompt_ms()
        if prompt is None:
            return ()
        phases = [ServerPhase("server: prompt processing", -prompt, 0.0)]
        if self.prompt_n is not None and self.cache_n is not None:
            # What warming is for: the prompt tokens the cache spared against those computed.
            figures = (("cached", self.cache_n), ("computed", self.prompt_n))
            phases.append(ServerPhase(PROMPT_CACHED, -prompt, -prompt, figures))
        if self.predicted_ms is not None:
            phases.append(ServerPhase("server: generation", 0.0, self.predicted_ms))
        drafts = self.drafts()
        if drafts and drafts[0]:  # speculative decoding: how many guessed tokens it kept
            figures = (("drafted", drafts[0]), ("accepted", drafts[1]))
            phases.append(ServerPhase(DRAFTS_ACCEPTED, 0.0, 0.0, figures))
        return tuple(phases)

    def figures(self) -> dict[str, float]:
        figures: dict[str, float] = {}
        if (prompt := self.prompt_ms()) is not None:
            figures["server_prompt_ms"] = prompt
        if self.predicted_per_second is not None:
            figures["server_tokens_per_s"] = self.predicted_per_second
        return figures
