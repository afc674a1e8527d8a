"""`tachy bench --mcp FILE`: n turns with tools, each split into the model's time and the
tools' time (the user's approval apart: it is never latency), and the model's prefill
of the tools' results (each later model call's TTFT).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.stats import Summary, summarize
from client.core.timeline import now_ns
from client.services.tools import loop_events as ev
from client.services.tools.loop import ModelCall, ToolLoop

OUTCOMES = {ev.Answered: "answered", ev.StepLimitReached: "step_limit",
            ev.ModelFailed: "failed", ev.ModelStopped: "stopped"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ToolTurn:
    """One measured turn: its whole time and its figures."""

    ms: float
    figures: ev.LoopFigures
    outcome: str

    def as_dict(self) -> dict[str, object]:
        return {"ms": round(self.ms, 3), "outcome": self.outcome, **self.figures.as_dict()}


@dataclass(slots=True)
class ToolBenchReport:
    model: str
    prompt: str
    turns: list[ToolTurn] = field(default_factory=list)

    def summaries(self) -> dict[str, Summary | None]:
        turns = self.turns
        return {
            "turn_ms": summarize(t.ms for t in turns),
            "model_ms": summarize(t.figures.model_ms for t in turns),
            "tools_ms": summarize(t.figures.tools_ms for t in turns),
            "approval_ms": summarize(t.figures.approval_ms for t in turns),
            "first_ttft_ms": summarize(_first_ttft(t) for t in turns),
            "result_ttft_ms": summarize(
                ms for t in turns for c in t.figures.model_calls[1:] if (ms := c.ttft_ms)
            ),
        }

    @property
    def tools_share(self) -> float:
        model = sum(t.figures.model_ms for t in self.turns)
        tools = sum(t.figures.tools_ms for t in self.turns)
        return tools / (model + tools) if model + tools > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        summaries = {k: s.as_dict() if s else None for k, s in self.summaries().items()}
        return {
            "model": self.model,
            "prompt": self.prompt,
            "tools_share": round(self.tools_share, 4),
            "summaries": summaries,
            "turns": [t.as_dict() for t in self.turns],
        }


async def run_tool_bench(
    report: ToolBenchReport,
    new_loop: Callable[[ModelCall], ToolLoop],
    model_call: ModelCall,
    n: int,
    warmup: int = 1,
    max_tokens: int | None = None,
) -> ToolBenchReport:
    """Run warmup + n turns of the report's prompt, each with a new loop; keep the n."""
    for index in range(warmup + n):
        question = ChatMessage("user", report.prompt)
        options = GenerationOptions(max_tokens=max_tokens)
        loop = new_loop(model_call)
        started = now_ns()
        async for _ in loop.run(ChatRequest(report.model, [question], options=options)):
            pass
        if index >= warmup:
            outcome = OUTCOMES.get(type(loop.outcome), "stopped")
            report.turns.append(ToolTurn((now_ns() - started) / 1e6, loop.figures, outcome))
    return report


def _first_ttft(turn: ToolTurn) -> float | None:
    calls = turn.figures.model_calls
    return calls[0].ttft_ms if calls else None
