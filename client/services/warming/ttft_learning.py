"""The TTFT predictors, one per server and model, learning from every answer.

    learning = TtftLearning(settings_store)
    bus.subscribe(AnswerFinished, learning.on_answer)   # the window, `tachy chat`, bench
    learning.predictor(route).predict(tokens)           # restored from the store

Whoever asked (the window, `tachy chat`, `tachy bench`), an answer teaches the
predictor of the server and model it went to; what each learned is kept in the
settings store ("ttft_learned <server> <model>"), so a new process predicts from
the start. The warming policy (warming_policy.py) says which prediction was shown
for the question sent (`expect`), so the predictor scores itself against it.
"""

from __future__ import annotations

import asyncio
import logging

from client.core.prediction import TtftPredictor
from client.services.events import AnswerFinished
from client.services.planning.planner import Route, TtftEstimate
from client.store.settings import Settings

log = logging.getLogger(__name__)

LEARNED_KEY = "ttft_learned"  # settings key: "ttft_learned <server> <model>"
SAVE_AFTER_S = 0.2  # saved this long after an answer ends: its last paint comes first


def learned_key(route: Route) -> str:
    """The settings key of a route's predictor: the local engine's is "local" (its port
    changes with each start), a server's its URL."""
    server = "local" if route.is_local else route.backend.base_url
    return f"{LEARNED_KEY} {server} {route.model}"


class TtftLearning:
    def __init__(self, store: Settings | None = None) -> None:
        self.store = store
        self._predictors: dict[str, TtftPredictor] = {}
        self._unsaved: set[str] = set()  # keys of predictors not in the settings yet
        # The prediction shown for the question under way: (prompt tokens, ms).
        self._expected: tuple[int, float | None] | None = None
        self._saving: asyncio.TimerHandle | None = None

    def predictor(self, route: Route) -> TtftPredictor:
        """The route's predictor, restored from what earlier processes learned of it."""
        key = learned_key(route)
        predictor = self._predictors.get(key)
        if predictor is None:
            predictor = self._predictors[key] = TtftPredictor()
            predictor.restore(self._stored(key))
        return predictor

    def estimate(self, route: Route) -> TtftEstimate:
        """The route's predicted wait for a count of prompt tokens not in the cache
        (a model warmed or not: no warmer says which)."""
        predictor = self.predictor(route)

        def predicted_ms(tokens: int) -> float | None:
            prediction = predictor.predict(tokens)
            return prediction.ttft_ms if prediction is not None else None

        return predicted_ms

    def expect(self, tokens: int | None, predicted_ms: float | None) -> None:
        """The draft's prediction shown when the question was sent (None: none)."""
        self._expected = (tokens, predicted_ms) if tokens is not None else None

    def on_answer(self, event: AnswerFinished) -> None:
        """An answer's first token teaches its route's predictor."""
        expected, self._expected = self._expected, None
        metrics, route = event.metrics, event.route
        if route is None or metrics.ttft_ms is None:  # no first token: nothing to learn
            return
        tokens, predicted = expected if expected is not None else (event.prompt_tokens, None)
        predictor = self.predictor(route)
        predictor.observe_metrics(metrics, tokens, cold=event.cold, predicted_ms=predicted)
        self._unsaved.add(learned_key(route))
        self._save_soon()

    def _save_soon(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save()
            return
        if self._saving is None:
            self._saving = loop.call_later(SAVE_AFTER_S, self.save)

    def save(self) -> None:
        """Write what the predictors learned since the last save."""
        if self._saving is not None:
            self._saving.cancel()
            self._saving = None
        unsaved, self._unsaved = self._unsaved, set()
        if self.store is None:
            return
        for key in unsaved:
            try:
                self.store.set(key, self._predictors[key].learned())
            except Exception as error:  # a full disk must not stop the chat
                log.warning("saving setting %s: %s", key, error)

    def _stored(self, key: str) -> object:
        if self.store is None:
            return None
        try:
            return self.store.get(key, None)
        except Exception as error:  # a damaged settings table must not stop the app
            log.warning("reading setting %s: %s", key, error)
            return None
