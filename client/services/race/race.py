"""A race: one question to 2-4 routes at once, each answer a version of one turn.

    race = Race(history, metrics, [RaceRoute((fast,)), RaceRoute((strong,))], "Why?")
    async for event in race:            # RaceEvent(column, StageChanged | Token | Finished ...)
        ...
    race.first_token, race.first_finish  # the columns that won each mark

The question is stored once; each column is a chat generation of its own
(client/services/chat/generation.py, through `ChatSession.answer_question`), so each
streams, measures and saves as any answer does, and the stored turn has one version
per column. Stop (`race.stop()`, or cancelling the task iterating the race) cancels
every column: each stream closes its connection, so each server stops, and each
answer is kept as stopped. At the end the first column to finish is the version shown.

Each column's history is treated as a normal turn's: with the app's `ModelVision`, a
model known not to see gets a note where an earlier image was. A server that does not
say (vLLM) refuses such a history once; the column learns it and asks again (the
refused answer stays a version beside, as a failed turn's Retry keeps it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field

from client.backends.errors import ImagesRefused
from client.core.events import Token
from client.core.metrics import NS_PER_MS
from client.core.timeline import now_ns
from client.services.chat import turn_store as turns
from client.services.chat.generation import Generation, SessionEvent
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, Outcome
from client.services.chat.session_settings import SessionSettings
from client.services.images.vision import ModelVision
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.planner import Route
from client.services.race.column import ColumnFigures, RaceColumn
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore

log = logging.getLogger(__name__)

MIN_ROUTES, MAX_ROUTES = 2, 4


@dataclass(frozen=True, slots=True)
class RaceRoute:
    """One column's way to an answer: a server and model (or a cascade's two), and the
    settings its session runs with (keep-alive, ...) and its knowledge, when on."""

    routes: tuple[Route, ...]
    settings: SessionSettings = field(default_factory=SessionSettings)
    knowledge: KnowledgeStage | None = None
    speculation: str = ""  # the local engine's speculative decoding, "" for none
    label: str = ""  # what the column is called; "" names it by its route

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        first = self.routes[0]
        if len(self.routes) > 1:
            return " / ".join(r.model for r in self.routes)
        return f"{first.server_name} · {first.model}" if first.server_name else first.model


@dataclass(frozen=True, slots=True)
class RaceEvent:
    column: int  # the index of the column it belongs to
    event: SessionEvent


class RaceError(ValueError):
    """A race that cannot run as asked (too few or too many routes)."""


class Race:
    def __init__(
        self,
        history: HistoryStore | None,
        metrics_store: MetricsStore | None,
        routes: Sequence[RaceRoute],
        question: str,
        conversation_id: int | None = None,
        *,
        system: str | None = None,
        vision: ModelVision | None = None,
    ) -> None:
        if not MIN_ROUTES <= len(routes) <= MAX_ROUTES:
            raise RaceError(f"A race needs {MIN_ROUTES} to {MAX_ROUTES} routes.")
        self._owned_db: Database | None = None
        if history is None:  # nowhere to keep it (a benchmark; storage unavailable)
            self._owned_db = Database(":memory:")
            history = HistoryStore(self._owned_db, recover=False)
        self.history = history
        self.metrics_store = metrics_store
        self.question = question
        self.conversation_id = conversation_id
        self.system = system
        self.vision = vision if vision is not None else ModelVision()  # the app's, if given
        self.user_message_id: int | None = None
        self.columns = [RaceColumn(i, r.name) for i, r in enumerate(routes)]
        self.first_token: int | None = None  # the column whose first token came first
        self.first_finish: int | None = None  # the first column to finish complete
        self.started_ns: int | None = None  # when the columns were started
        self._routes = tuple(routes)
        self._sessions: list[ChatSession] = []
        self._learned: set[Exception] = set()  # refusals that taught `vision` (asked again)
        self._tasks: list[asyncio.Task[None]] = []
        self._iterator: AsyncGenerator[RaceEvent, None] | None = None

    def __aiter__(self) -> AsyncGenerator[RaceEvent, None]:
        if self._iterator is None:
            self._iterator = self._run()
        return self._iterator

    async def stop(self) -> None:
        """Stop every column still running: each closes its connection and is kept
        as stopped. Returns when all have ended."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def figures(self, at_ns: int | None = None) -> list[ColumnFigures]:
        """Each column's figures now, with the marks it won."""
        now = at_ns if at_ns is not None else now_ns()
        return [
            c.figures(now, c.index == self.first_token, c.index == self.first_finish)
            for c in self.columns
        ]

    @property
    def done(self) -> bool:
        return all(column.finished is not None for column in self.columns)

    def elapsed_ms(self, at_ns: int | None = None) -> float:
        """Milliseconds since the columns started (0 before)."""
        if self.started_ns is None:
            return 0.0
        return ((at_ns if at_ns is not None else now_ns()) - self.started_ns) / NS_PER_MS

    # ---- the run ----------------------------------------------------------------------

    async def _run(self) -> AsyncGenerator[RaceEvent, None]:
        user = await self.history.db.run(
            turns.question_alone, self.history, self.conversation_id, self.question, self.system
        )
        self.user_message_id, self.conversation_id = user.id, user.conversation_id
        queue: asyncio.Queue[RaceEvent | None] = asyncio.Queue()
        self.started_ns = now_ns()
        for column, route in zip(self.columns, self._routes, strict=True):
            self._sessions.append(session := self._session(route))
            column.generation = session.answer_question(user.id, self.question)
            self._tasks.append(asyncio.create_task(self._column(column, queue)))
        try:
            running = len(self._tasks)
            while running:
                item = await queue.get()
                if item is None:
                    running -= 1
                    continue
                self._mark(item)
                yield item
        finally:
            await self.stop()  # a consumer that leaves or is cancelled stops the race
            while not queue.empty():  # how the columns ended, told to nobody
                if (left := queue.get_nowait()) is not None:
                    self._mark(left)
        await self._show_winner()
        if self._owned_db is not None:
            self._owned_db.close()

    def _session(self, route: RaceRoute) -> ChatSession:
        first = route.routes[0]
        session = ChatSession(
            first.backend,
            first.model,
            self.history,
            self.metrics_store,
            first.server_name,
            settings=route.settings,
            is_local=first.is_local,
        )
        session.use_routes(route.routes)
        session.knowledge = route.knowledge
        session.vision = self.vision  # the history's images as a normal turn treats them
        return session

    async def _column(self, column: RaceColumn, queue: asyncio.Queue[RaceEvent | None]) -> None:
        try:
            await self._stream(column, queue)
            generation = column.generation
            assert generation is not None
            if self._refused_history(generation):  # learned now: the note goes instead
                assert generation.assistant_message_id is not None
                session = self._sessions[column.index]
                column.generation = session.retry(generation.assistant_message_id)
                await self._stream(column, queue)
        except asyncio.CancelledError:
            queue.put_nowait(RaceEvent(column.index, _ended(column.generation, Outcome.STOPPED)))
            raise
        except Exception as error:  # the generation concluded and saved it; tell the column
            log.warning("a race column failed: %s", error)
            queue.put_nowait(RaceEvent(column.index, _ended(column.generation, Outcome.FAILED)))
        finally:
            queue.put_nowait(None)

    async def _stream(self, column: RaceColumn, queue: asyncio.Queue[RaceEvent | None]) -> None:
        """The column's generation's events, but for the end of one refused for the
        history's images (the column asks again)."""
        generation = column.generation
        assert generation is not None
        async for event in generation:
            if isinstance(event, Finished) and self._refused_history(generation):
                continue
            queue.put_nowait(RaceEvent(column.index, event))

    def _refused_history(self, generation: Generation) -> bool:
        """A model whose server did not say refused the history's images: true once
        (`learn` says whether it is news), so a column asks again at most once."""
        if not isinstance(generation.error, ImagesRefused):
            return False
        if generation.error in self._learned:
            return True
        if self.vision.learn(generation.route, generation.error):
            self._learned.add(generation.error)
            return True
        return False

    def _mark(self, item: RaceEvent) -> None:
        column = self.columns[item.column]
        column.take(item.event, now_ns())
        if self.first_token is None and isinstance(item.event, Token):
            self.first_token = column.index  # the first token the audience saw
        finished = item.event if isinstance(item.event, Finished) else None
        if finished is not None and finished.outcome is Outcome.COMPLETE:
            if self.first_finish is None:
                self.first_finish = column.index
        if column.finished is not None and column.finished_at_ms is None:
            column.finished_at_ms = self.elapsed_ms(column.ended_ns)

    async def _show_winner(self) -> None:
        """The version shown after the race: the first to finish (else the first column)."""
        shown = self.columns[self.first_finish or 0].finished
        if shown is None or shown.message_id is None:
            return
        try:
            await self.history.db.run(turns.show_version, self.history, shown.message_id)
        except Exception:
            log.exception("could not show the race's winner")


def _ended(generation: Generation | None, outcome: Outcome) -> Finished:
    """How a column ended when its generation raised instead of yielding Finished."""
    if generation is None:
        return Finished(outcome=outcome, text="")
    if generation.finished is not None:
        return generation.finished
    return Finished(outcome=outcome, text="", message_id=generation.assistant_message_id)
