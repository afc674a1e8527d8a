"""`tachy bench --type-ahead CPS`: a question typed with type-ahead on against the same
question pasted at once (client/services/warming/type_ahead.py).

Typed: the draft grows by CPS characters a second; every `step_s` the draft so far is
read by the server (as the window does after a pause in typing, and again as it grows,
one read at a time); Enter comes right after the last character, cancelling a read
still under way, and the question is sent. Pasted: the same question sent at once. Each
run asks a question of its own, so no prompt cache holds it from an earlier run.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any

from client.backends.base import Backend
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.metrics import RequestMetrics
from client.core.stats import percentile
from client.services.warming.type_ahead import Saving, TypeAhead

TIMEOUTS = StreamTimeouts(first_byte_s=600.0, stall_s=120.0)
STEP_S = 0.5  # the window reads after a 400 ms pause or every 1.5 s of steady typing


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


async def typed(
    backend: Backend, model: str, prompt: str, cps: float, max_tokens: int = 8
) -> tuple[RequestMetrics, Saving | None]:
    """Type `prompt` at `cps` characters a second with type-ahead on, then send it."""
    ahead = TypeAhead()
    started = time.monotonic()
    try:
        while True:
            typed_chars = int((time.monotonic() - started) * cps)
            draft = prompt[:typed_chars]
            if typed_chars >= len(prompt):
                break
            ahead.read(backend, question(draft, model, max_tokens), draft)
            await asyncio.sleep(min(STEP_S, (len(prompt) - typed_chars) / cps))
        ahead.request_started()  # Enter
        metrics = await send(backend, question(prompt, model, max_tokens))
        return metrics, ahead.request_finished(metrics)
    finally:
        await ahead.aclose()


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
        metrics, saving = await typed(backend, model, typed_prompt, cps, max_tokens)
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
