"""The background job of history compression (client/services/planning/compression.py says
when and what): after an answer, summarise a long conversation's older turns with the
fast model, never while an answer runs, and put the summary on the session."""

from __future__ import annotations

import asyncio

from client.core.conversation import ChatMessage
from client.services.chat.session import ChatSession
from client.services.planning.compression import (
    IDLE_POLL_S,
    Busy,
    StoredSummary,
    fast_route,
    older_turns,
    summarise,
    worth_compressing,
)
from client.services.planning.planner import HistorySummary


class HistoryCompressor:
    def __init__(self, session: ChatSession) -> None:
        self.session = session

    async def after_answer(self, conversation_id: int, busy: Busy) -> StoredSummary | None:
        """Summarise when the conversation is worth it; the summary, or None."""
        session = self.session
        if not session.settings.compress_history:
            return None
        history, ids = await session.history.db.run(lambda: session.stored_context(conversation_id))
        plan = session.plan_question(history, "", ids)
        if not worth_compressing(plan.prompt_tokens, plan.predicted_ttft_ms):
            return None
        older, covered = older_turns(history, ids)
        if len(older) < 2:
            return None
        if busy():  # an answer is running: the engine is its own; the next end retries
            return None
        text = await self._summary_unless_busy(older, busy)
        if text is None:
            return None
        stored = StoredSummary(HistorySummary(text, len(older)), covered)
        await session.history.db.run(session.summaries.keep, conversation_id, stored)
        return stored

    async def _summary_unless_busy(self, older: list[ChatMessage], busy: Busy) -> str | None:
        task = asyncio.ensure_future(summarise(fast_route(self.session.routes), older))
        try:
            while not task.done():
                if busy():  # an answer started: it goes first, the summary waits for later
                    task.cancel()
                    await asyncio.wait({task})
                    return None
                await asyncio.wait({task}, timeout=IDLE_POLL_S)
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
