"""The doctor hears the root's answers (client/services/events.py): in the window,
Help > Check this machine says the last answer's server and time to first token, so a
report shows whether the chat reached a server at all and how long it waited.

    answers = LastAnswer(tachy.events)
    answers.check()     # a Check: "last answer: SmolLM2 at Local: first token in 212 ms"
"""

from __future__ import annotations

from client.services.doctor.report import Check, info, ok
from client.services.events import AnswerFinished, EventBus

NAME = "last answer"


class LastAnswer:
    def __init__(self, bus: EventBus) -> None:
        self.answer: AnswerFinished | None = None
        self.leave = bus.subscribe(AnswerFinished, self._heard)

    def _heard(self, answer: AnswerFinished) -> None:
        self.answer = answer

    def check(self) -> Check:
        answer = self.answer
        if answer is None or answer.route is None:
            return info(NAME, "none yet since Tachy started")
        route, ttft = answer.route, answer.metrics.ttft_ms
        where = {"model": route.model, "server": route.server_name}
        if ttft is None:
            return info(NAME, "{model} at {server}: no first token".format(**where))
        return ok(
            NAME, "{model} at {server}: first token in {ms} ms".format(**where, ms=round(ttft))
        )
