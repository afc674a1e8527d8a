"""History compression: when a conversation's prompt grows past a threshold (1,500
tokens, or a predicted prefill over 1 s), the fast model summarises the older turns in
the background and the next plans send the summary plus the recent turns (the
planner's `summary` slot, client/services/planning/planner.py). The stored turns are untouched.

    compressor = HistoryCompressor(session)
    await compressor.after_answer(conversation_id, busy=lambda: runner.busy)

It never competes with an answer: it does not start while `busy()` says one runs
and gives up when one starts during the summary (the summary is cancelled, its
stream closed). A summary holds only while the turns it covers are still the
conversation's (an edit or a new version before them drops it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Failed, Token, TokenKind
from client.services.planning.planner import HistorySummary, Route
from client.services.planning.router import Tier

THRESHOLD_TOKENS = 1500
MAX_PREFILL_MS = 1000.0
KEEP_RECENT = 4  # messages (two turns) always sent as they are
SUMMARY_TOKENS = 200
IDLE_POLL_S = 0.05
SUMMARY_PROMPT = (
    "Summarise the conversation below in a few sentences for the assistant to go on "
    "from: the user's goals, facts given, decisions and open questions. Reply with the "
    "summary only.\n\n"
)


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """A summary and the stored ids of the messages it stands for."""

    summary: HistorySummary
    covered_ids: tuple[int | None, ...]

    def holds_for(self, history: Sequence[ChatMessage], ids: Sequence[int | None]) -> bool:
        """True while the conversation still starts with the turns it covers."""
        kept = [i for m, i in zip(history, ids, strict=False) if m.role != "system"]
        return tuple(kept[: len(self.covered_ids)]) == self.covered_ids


def worth_compressing(prompt_tokens: int, predicted_ttft_ms: float | None) -> bool:
    if prompt_tokens > THRESHOLD_TOKENS:
        return True
    return predicted_ttft_ms is not None and predicted_ttft_ms > MAX_PREFILL_MS


def older_turns(
    history: Sequence[ChatMessage], ids: Sequence[int | None]
) -> tuple[list[ChatMessage], tuple[int | None, ...]]:
    """The non-system messages before the recent ones, and their ids. Images are left
    alone: a summary covers only the turns before the first message with images (a
    summary is text; that message and all after it are sent as they are)."""
    pairs = [(m, i) for m, i in zip(history, ids, strict=False) if m.role != "system"]
    older = pairs[:-KEEP_RECENT] if len(pairs) > KEEP_RECENT else []
    with_images = next((n for n, (m, _) in enumerate(older) if m.images), None)
    if with_images is not None:
        older = older[:with_images]
    return [m for m, _ in older], tuple(i for _, i in older)


def summary_request(model: str, older: Sequence[ChatMessage]) -> ChatRequest:
    transcript = "\n\n".join(f"{m.role}: {m.content}" for m in older)
    return ChatRequest(
        model=model,
        messages=[ChatMessage("user", SUMMARY_PROMPT + transcript)],
        options=GenerationOptions(temperature=0.0, max_tokens=SUMMARY_TOKENS),
    )


async def summarise(route: Route, older: Sequence[ChatMessage]) -> str | None:
    """The model's summary of `older`; None when it failed or said nothing."""
    text = ""
    async with route.backend.chat(summary_request(route.model, older)) as stream:
        async for event in stream:
            if isinstance(event, Token) and event.kind is TokenKind.ANSWER:
                text += event.text
            elif isinstance(event, Failed):
                return None
    return text.strip() or None


def fast_route(routes: Sequence[Route]) -> Route:
    """The cascade's fast model, else the one model there is."""
    return next((r for r in routes if r.tier == Tier.FAST.value), routes[0])


Busy = Callable[[], bool]
