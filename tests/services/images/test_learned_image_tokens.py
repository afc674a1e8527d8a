"""Against a real llama.cpp vision server (issue 39, item 14): before any reply an
image's prompt tokens are the 512 px tile rule's estimate (and said to be one); the
first reply to an image teaches the server's own count, so the next image of that size
is estimated at what the server counts (pixtral: one token per 32 px patch, about 80
for 320 x 256, where the rule says 256)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from client.backends import OpenAICompatBackend
from client.core.images import Attachment
from client.services.chat.session import ChatSession
from client.services.events import EventBus
from client.services.images.preparation import prepare_image
from client.services.warming.warming_policy import WarmingPolicy
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from tests.vision_server import ONE_WORKER, VisionServer

pytestmark = [pytest.mark.engine, pytest.mark.timeout(900), ONE_WORKER]


def _noise(side: tuple[int, int], seed: int) -> Attachment:
    out = io.BytesIO()
    Image.effect_noise(side, 40 + seed).convert("RGB").save(out, "PNG")
    return prepare_image(out.getvalue(), f"noise{seed}.png")


async def test_the_first_image_reply_teaches_the_servers_count(
    db: Database,
    vision_server: VisionServer,
) -> None:
    backend = OpenAICompatBackend(vision_server.url)
    session = ChatSession(backend, vision_server.model, HistoryStore(db), server_name="vision")
    session.configure(options=session.settings.options.__class__(max_tokens=2))
    policy = WarmingPolicy()
    policy.retarget(session, None, "test")
    session.events = EventBus()  # the policy hears each turn there, as under Tachy
    policy.subscribe(session.events)
    counter = policy.counter
    assert counter is not None
    first, second = _noise((320, 256), 1), _noise((320, 256), 2)
    guessed = counter.image_tokens([second.sent])
    policy.draft_images = lambda: [second.sent]
    assert guessed == 256 and policy.images_estimated()  # the rule's guess, said as one
    try:
        asked = session.generate(None, "What is this?", images=[first])
        async for _event in asked:
            pass
        assert asked.finished is not None and asked.finished.metrics.prompt_tokens
        again = session.generate(None, "And this?", images=[second])
        async for _event in again:
            pass
    finally:
        await policy.aclose()
        await backend.aclose()
    assert not policy.images_estimated()
    learned = counter.image_tokens([second.sent])
    text = counter.count_text("And this?")
    counted = again.finished.metrics.prompt_tokens - text  # type: ignore[union-attr,operator]
    print(f"image tokens: rule {guessed}, learned {learned}, the server's count about {counted}")
    assert abs(learned - counted) < 0.25 * counted < abs(guessed - counted)
