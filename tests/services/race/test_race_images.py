"""A race after an image earlier in the conversation: its question has none, so each
text-only column answers, as a normal turn would, with a note where the image was
(issue 39, item 2). A server that says its model cannot see (llama-server's /props) is
never sent the image; one that does not say (vLLM) refuses it once, and the column asks
again with the note."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

from client.backends import OpenAICompatBackend
from client.core.images import Attachment
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome
from client.services.images.preparation import prepare_image
from client.services.images.vision import ModelVision
from client.services.planning.history_images import ONE_IMAGE_NOTE
from client.services.planning.planner import Route
from client.services.race.race import Race, RaceRoute
from client.store.conversations.history import HistoryStore
from client.store.db import Database

pytestmark = pytest.mark.timeout(120)

DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4}
MODELS = {"models": {"seer": {"vision": True}, "reader": {}, "other-reader": {}}}


def photo() -> Attachment:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 160, 40)).save(out, "PNG")
    return prepare_image(out.getvalue(), "field.png")


@pytest.fixture(params=["vllm", "llamacpp"])
async def lab(request: pytest.FixtureRequest) -> AsyncIterator[LabServer]:
    server = LabServer(scenario_from_dict({**DIALS, **MODELS, "server": request.param}))
    await server.start()
    yield server
    await server.stop()


async def test_text_columns_answer_after_an_image_earlier_in_the_conversation(
    db: Database, lab: LabServer
) -> None:
    backend = OpenAICompatBackend(lab.url)
    history = HistoryStore(db)
    try:
        seeing = ChatSession(backend, "seer", history, server_name="Lab")
        first = seeing.generate(None, "what is this?", images=[photo()])
        _ = [event async for event in first]
        assert first.finished is not None and first.finished.outcome is Outcome.COMPLETE
        routes = [RaceRoute((Route(backend, m, "Lab"),)) for m in ("reader", "other-reader")]
        race = Race(history, None, routes, "and why?", first.conversation_id, vision=ModelVision())
        _ = [event async for event in race]
    finally:
        await backend.aclose()
    assert [c.finished.outcome for c in race.columns if c.finished] == [Outcome.COMPLETE] * 2
    for column in race.columns:
        assert column.generation is not None and column.generation.request is not None
        sent: Any = column.generation.request.messages
        assert [m.images for m in sent] == [(), (), ()]
        assert sent[0].content.endswith(ONE_IMAGE_NOTE)
    if lab.scenario.server == "llamacpp":  # /props said so: no image was ever sent
        assert lab.stats.requests == lab.stats.completed
