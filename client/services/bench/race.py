"""`tachy bench --race URL#MODEL URL#MODEL ...`: n questions, each raced on every route
at once as the window races them (client/services/race/race.py), with TTFT and rate
P50/P95 per route and how often each route won the first token and the finish
(client/cli/bench/race.py prints them).

Each question starts with its own word (as `tachy bench --cold` does), so no route
answers a question its server's prompt cache already holds from the one before. The
races are kept in an in-memory history: a benchmark leaves no conversations behind.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from client.core.conversation import GenerationOptions
from client.core.metrics import RequestMetrics
from client.core.stats import Summary, summarize
from client.services.bench.export import ExportedRequest
from client.services.bench.runner import DEFAULT_PROMPT, START_WORDS
from client.services.chat.session_events import Outcome
from client.services.chat.session_settings import SessionSettings
from client.services.planning.planner import Route
from client.services.race.column import ColumnFigures, RaceColumn
from client.services.race.race import Race, RaceRoute


@dataclass(frozen=True, slots=True)
class RaceBenchSettings:
    n: int = 10
    prompt: str = DEFAULT_PROMPT
    max_tokens: int = 64
    warmup: int = 1  # races run first, not reported


@dataclass(slots=True)
class RouteResults:
    """One route's figures over the run."""

    name: str
    model: str
    races: list[ColumnFigures] = field(default_factory=list)
    answers: list[ExportedRequest] = field(default_factory=list)  # for --export

    @property
    def completed(self) -> list[ColumnFigures]:
        return [f for f in self.races if f.outcome is Outcome.COMPLETE]

    @property
    def errors(self) -> int:
        return len(self.races) - len(self.completed)

    def ttft(self) -> Summary | None:
        return summarize(f.ttft_ms for f in self.completed)

    def rate(self) -> Summary | None:
        return summarize(f.tokens_per_s for f in self.completed)

    @property
    def first_token_wins(self) -> int:
        return sum(f.first_token for f in self.races)

    @property
    def finish_wins(self) -> int:
        return sum(f.first_finish for f in self.races)

    def as_dict(self) -> dict[str, Any]:
        ttft, rate = self.ttft(), self.rate()
        return {
            "route": self.name,
            "model": self.model,
            "races": len(self.races),
            "errors": self.errors,
            "ttft_ms": ttft.as_dict() if ttft else None,
            "tokens_per_s": rate.as_dict() if rate else None,
            "first_token_wins": self.first_token_wins,
            "finish_wins": self.finish_wins,
        }


@dataclass(slots=True)
class RaceBenchReport:
    settings: RaceBenchSettings
    routes: list[RouteResults]

    @property
    def races(self) -> int:
        return len(self.routes[0].races) if self.routes else 0

    def exported(self) -> list[ExportedRequest]:
        """Every column's answer of every race, route by route, for --export."""
        return [answer for route in self.routes for answer in route.answers]

    def as_dict(self) -> dict[str, Any]:
        return {
            "races": self.races,
            "max_tokens": self.settings.max_tokens,
            "routes": [route.as_dict() for route in self.routes],
        }


async def run_race_bench(routes: Sequence[Route], settings: RaceBenchSettings) -> RaceBenchReport:
    """Race `settings.n` questions (after the warm-up ones) on every route at once."""
    options = GenerationOptions(max_tokens=settings.max_tokens)
    race_routes = [RaceRoute((r,), SessionSettings(options=options)) for r in routes]
    results = [RouteResults(r.name, r.routes[0].model) for r in race_routes]
    report = RaceBenchReport(settings, results)
    for index in range(settings.warmup + settings.n):
        question = f"{START_WORDS[index % len(START_WORDS)]}: {settings.prompt}"
        race = Race(None, None, race_routes, question)  # kept in memory only
        started_at = time.time()
        async for _ in race:
            pass
        if index >= settings.warmup:
            for route, figures in zip(report.routes, race.figures(), strict=True):
                route.races.append(figures)
            for route, column in zip(report.routes, race.columns, strict=True):
                route.answers.append(_answer(route.name, column, started_at))
    return report


def _answer(name: str, column: RaceColumn, started_at: float) -> ExportedRequest:
    """A column's answer as --export writes it (started when its race did)."""
    finished = column.finished
    if finished is None:
        return ExportedRequest(name, RequestMetrics(), "failed", "did not end", False, started_at)
    complete = finished.outcome is Outcome.COMPLETE
    outcome = "stop" if complete else finished.outcome.value
    error = None if complete else (finished.error_message or finished.outcome.value)
    return ExportedRequest(name, finished.metrics, outcome, error, False, started_at)
