"""`tachy bench --type-ahead CPS`: a question typed with type-ahead on against the same
question pasted at once (client/services/warming/type_ahead.py).

Typed: a person types the question at CPS keys a second, stopping to think for
THINKING_S after every THOUGHT_WORDS words (so the mean rate is lower: `Typing.cps`
says it); the draft is read as the window reads it (after a READ_AFTER_PAUSE_S pause,
and every READ_WHILE_GROWING_S while typing goes on; one read at a time, the newest
next), and Enter comes one key after the last character, cancelling a read still under
way; the question goes to the last read's slot, as the chat pipeline sends it. `start`:
the part of the question already in the draft when typing begins (pasted, or typed
long before), read after the first pause. Pasted: the same question sent at
once. Each run asks a question of its own, so no prompt cache holds it from an earlier
run.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, replace
from typing import Any

from client.backends.base import Backend
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.metrics import RequestMetrics
from client.core.stats import percentile
from client.services.warming.type_ahead import (
    READ_AFTER_PAUSE_S,
    READ_WHILE_GROWING_S,
    ReadFigures,
    Saving,
    TypeAhead,
    read_figures,
    rough_count,
    settled_part,
)

TIMEOUTS = StreamTimeouts(first_byte_s=600.0, stall_s=120.0)
THOUGHT_WORDS = 8  # a typist stops to think after this many words ...
THINKING_S = 0.8  # ... for this long


@dataclass(frozen=True, slots=True)
class ModeFigures:
    name: str  # "type-ahead" or "pasted"
    ttft_ms: list[float]
    saved_tokens: list[int]

    @property
    def p50(self) -> float | None:
        return statistics.median(self.ttft_ms) if self.ttft_ms else None

    @property
    def p95(self) -> float | None:
        return percentile(sorted(self.ttft_ms), 95) if self.ttft_ms else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.name,
            "n": len(self.ttft_ms),
            "ttft_p50_ms": self.p50,
            "ttft_p95_ms": self.p95,
            "ttft_ms": self.ttft_ms,
            "question_read_tokens": self.saved_tokens,
        }


def question(prompt: str, model: str, max_tokens: int) -> ChatRequest:
    return ChatRequest(
        model, [ChatMessage("user", prompt)], GenerationOptions(max_tokens=max_tokens)
    )


async def send(backend: Backend, request: ChatRequest) -> RequestMetrics:
    async with backend.chat(request, TIMEOUTS) as stream:
        async for _ in stream:
            pass
    return stream.metrics()


@dataclass(slots=True)
class Typing:
    """What one typed question did: its reads, and how fast it was typed."""

    chars: int = 0  # typed, not pasted
    seconds: float = 0.0  # from the first key to Enter
    reads: int = 0  # reads asked for (the window's timers, when worth it)
    reading_at_enter: bool = False  # a read was under way when Enter cancelled it
    sent: ReadFigures | None = None  # the sent request's prompt: computed (unread at
    # Enter), cached, and the server's prefill time (ms)

    @property
    def cps(self) -> float | None:
        """The mean rate, pauses included."""
        return self.chars / self.seconds if self.seconds > 0 else None


def key_gaps(prompt: str, start: int, cps: float) -> list[float]:
    """Seconds from each typed character to the next key (the last: to Enter)."""
    gaps, words = [], 0
    for i in range(start, len(prompt)):
        gap = 1.0 / cps
        if prompt[i] == " " and i > start:
            words += 1
            if words % THOUGHT_WORDS == 0:
                gap += THINKING_S
        gaps.append(gap)
    return gaps


async def typed(
    backend: Backend, model: str, prompt: str, cps: float, max_tokens: int = 8, start: int = 0
) -> tuple[RequestMetrics, Saving | None, Typing]:
    """Type `prompt[start:]` after `prompt[:start]` at `cps` keys a second with
    type-ahead on, reading the draft as the window does; then Enter."""
    ahead = TypeAhead()
    typing = Typing(chars=len(prompt) - start)
    began = time.monotonic()

    def read(draft: str, paused: bool) -> None:
        if not paused:  # typing goes on: the word being typed is left for later
            draft = settled_part(draft)
        if ahead.worth_reading(draft, rough_count):  # as the window asks
            typing.reads += 1
            ahead.read(backend, question(draft, model, max_tokens), draft)

    try:
        growing_until: float | None = None  # the window's "read while growing" timer
        at = began
        if start:  # in the draft already: read after the first pause
            growing_until = at + READ_WHILE_GROWING_S
        for end, gap in enumerate(key_gaps(prompt, start, cps), start + 1):
            if growing_until is None:
                growing_until = at + READ_WHILE_GROWING_S
            next_key = at + gap
            read_at = min(growing_until, at + READ_AFTER_PAUSE_S)
            if read_at < next_key:
                await _sleep_until(read_at)
                read(prompt[:end], paused=read_at < growing_until)
                growing_until = None
            at = next_key
            await _sleep_until(at)
        typing.seconds = time.monotonic() - began
        typing.reading_at_enter = ahead.reading
        ahead.request_started()  # Enter
        asked = question(prompt, model, max_tokens)
        # As the chat pipeline sends it: to the read's slot (TurnSteps' slot hint).
        metrics = await send(backend, replace(asked, slot=ahead.slot_for(backend, asked)))
        typing.sent = read_figures(metrics)
        return metrics, ahead.request_finished(metrics), typing
    finally:
        await ahead.aclose()


async def _sleep_until(moment: float) -> None:
    await asyncio.sleep(max(moment - time.monotonic(), 0.0))


async def pasted(backend: Backend, model: str, prompt: str, max_tokens: int = 8) -> RequestMetrics:
    return await send(backend, question(prompt, model, max_tokens))


async def compare(
    backend: Backend, model: str, prompts: list[str], cps: float, max_tokens: int = 8
) -> tuple[ModeFigures, ModeFigures]:
    """Each prompt typed, then a variant of it pasted (`prompts` come in pairs of
    distinct texts, so the pasted one finds no cache of the typed one)."""
    typed_ms: list[float] = []
    saved: list[int] = []
    pasted_ms: list[float] = []
    for typed_prompt, pasted_prompt in zip(prompts[::2], prompts[1::2], strict=True):
        metrics, saving, _ = await typed(backend, model, typed_prompt, cps, max_tokens)
        if metrics.ttft_ms is not None:
            typed_ms.append(metrics.ttft_ms)
            saved.append(saving.tokens if saving is not None else 0)
        plain = await pasted(backend, model, pasted_prompt, max_tokens)
        if plain.ttft_ms is not None:
            pasted_ms.append(plain.ttft_ms)
    return ModeFigures("type-ahead", typed_ms, saved), ModeFigures("pasted", pasted_ms, [])


def format_line(typed_mode: ModeFigures, pasted_mode: ModeFigures) -> str:
    """`type-ahead: TTFT P50 48 ms, P95 61 ms (pasted: P50 842 ms, P95 900 ms)`"""

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f} ms"

    return (
        f"type-ahead: TTFT P50 {ms(typed_mode.p50)}, P95 {ms(typed_mode.p95)} "
        f"(pasted: P50 {ms(pasted_mode.p50)}, P95 {ms(pasted_mode.p95)})"
    )
