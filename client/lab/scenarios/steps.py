"""Sequences: the steps a scenario plays in order of arrival, and where each one is.

A step is a fault or ``ok``, with its own TTFT and TPOT if it says so, played ``repeat``
times. After the last step the sequence loops, holds the last step, or is ``ok`` (the
base scenario's timing, no fault). Requests are counted per model, or per conversation
when the request carries one (header ``X-Conversation-Id``, or OpenAI's ``user``).
"""

from __future__ import annotations

from client.lab.scenarios.scenario import Step

OK = Step()


def step_at(steps: tuple[Step, ...], after: str, index: int) -> Step:
    """The step the index-th request (from 0) plays."""
    total = sum(step.repeat for step in steps)
    if index >= total:
        if after == "ok":
            return OK
        index = total - 1 if after == "hold" else index % total
    for step in steps:
        if index < step.repeat:
            return step
        index -= step.repeat
    return OK  # not reached: index < total here


class Positions:
    """How many requests each model (or conversation) has made in the sequence."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], int] = {}

    def next_index(self, model: str, conversation: str | None) -> int:
        key = (model, conversation or "")
        index = self._seen.get(key, 0)
        self._seen[key] = index + 1
        return index

    def clear(self) -> None:
        self._seen.clear()
