"""The images waiting in the composer count in the draft's predicted wait; the server's
count after the first reply to an image sets the rate images are counted at."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest
from PIL import Image

from client.backends import OllamaBackend
from client.core.conversation import ChatMessage
from client.core.images import Attachment, ImagePart
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession
from client.services.events import EventBus
from client.services.images.preparation import prepare_image
from client.services.planning.tokenize import PromptTokenCounter
from client.services.warming.warming_policy import WarmingPolicy
from client.store.conversations.history import HistoryStore
from client.store.db import Database

pytestmark = pytest.mark.timeout(120)

PHOTO = ImagePart(b"jpeg bytes", "image/jpeg", 1024, 768)  # 2 x 2 tiles: 1,024 tokens


def photo() -> Attachment:
    out = io.BytesIO()
    Image.new("RGB", (1024, 768), (90, 160, 40)).save(out, "JPEG")
    return prepare_image(out.getvalue(), "field.jpg")


def test_an_attached_image_adds_its_tokens_and_lengthens_the_predicted_wait() -> None:
    policy = WarmingPolicy()
    for tokens, ttft_ms in [(20, 60.0), (500, 300.0), (2000, 1100.0)]:
        policy.predictor.observe(tokens, ttft_ms)  # prefill grows with the prompt
    plain = policy.predict_draft("what is this?")
    plain_tokens = policy.draft.tokens if policy.draft is not None else 0
    waiting = [PHOTO]
    policy.draft_images = lambda: waiting
    seen = policy.predict_draft("what is this?")
    assert policy.draft is not None and policy.draft.tokens == plain_tokens + 1024
    assert plain is not None and seen is not None and seen.ttft_ms > plain.ttft_ms
    waiting.clear()  # removed from the composer: the wait is the text's again
    assert policy.predict_draft("what is this?") == plain


@pytest.fixture
async def lab_url() -> AsyncIterator[str]:
    scenario = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "tokens_per_tile": 100}
    lab = LabServer(scenario_from_dict({**scenario, "models": {"seer": {"vision": True}}}))
    yield await lab.start()
    await lab.stop()


async def test_the_servers_count_after_the_first_image_reply_sets_the_rate(
    db: Database, lab_url: str
) -> None:
    backend = OllamaBackend(lab_url)
    session = ChatSession(backend, "seer", HistoryStore(db), server_name="Lab")
    policy = WarmingPolicy()
    policy.retarget(session, None, "test")
    session.events = EventBus()  # the policy hears each turn there, as under Tachy
    policy.subscribe(session.events)
    counter = policy.counter
    assert counter is not None and counter.tokens_per_tile == 256  # the rule, before
    policy.draft_images = lambda: [photo().sent]
    assert policy.images_estimated()  # issue 39, item 14: said as an estimate until ...
    try:
        first = session.generate(None, "what is this?", images=[photo()])  # 2 x 2 tiles
        async for _event in first:
            pass
        assert 90 <= counter.tokens_per_tile <= 110  # the lab's 100, less the text's error
        assert not policy.images_estimated()  # ... the server counted one
        assert first.conversation_id is not None
        history, ids = session.stored_context(first.conversation_id)
        follow = session.plan_question(history, "and the colour?", ids)
        second = session.generate(first.conversation_id, "and the colour?")
        async for _event in second:
            pass
    finally:
        await policy.aclose()
        await backend.aclose()
    assert second.finished is not None and second.finished.metrics.prompt_tokens is not None
    reported = second.finished.metrics.prompt_tokens
    assert abs(follow.prompt_tokens - reported) < 0.1 * reported  # the plan counts as the lab
    assert not counter.learn_images(follow.messages, reported)  # a follow-up teaches nothing


def test_a_figure_too_small_for_the_images_is_not_learned() -> None:
    counter = PromptTokenCounter(OllamaBackend("http://127.0.0.1:9"), "seer")
    question = [ChatMessage("user", "what is this?", (PHOTO,))]
    assert not counter.learn_images(question, 12)  # a prompt cache hid the image
    assert counter.tokens_per_tile == 256
    assert counter.learn_images(question, 4 * 150 + 8)
    assert counter.tokens_per_tile == pytest.approx(150, abs=1)
    assert counter([ChatMessage("user", "", (PHOTO,))][0]) == 4 + 4 * 150


def test_a_fixed_size_encoders_count_teaches_the_side_worth_sending() -> None:
    """Issue 39, item 14: the gemma3 projector of the real vision server made 95 tokens
    of a 1,024 x 768 image; its tokens stand for at most 64 px a side, so it cannot use
    more than about 721 px: the next image is cut there. A patch encoder (pixtral: 825
    tokens of the same image) uses all it is sent: nothing is cut."""
    from client.core.images import ImagePart
    from client.services.images.vision import ModelVision
    from client.services.planning.planner import Route

    backend = OllamaBackend("http://127.0.0.1:9")
    sent = ImagePart(b"", "image/jpeg", 1024, 768)
    question = [ChatMessage("user", "what is this?", (sent,))]
    text = sum(PromptTokenCounter(backend, "m")(m) for m in [ChatMessage("user", "what is this?")])
    fixed = PromptTokenCounter(backend, "gemma3")
    assert fixed.useful_side is None and fixed.learn_images(question, text + 95)
    assert fixed.useful_side == 721
    how = ModelVision().preparation(Route(backend, "gemma3"), fixed.useful_side)
    assert how.longest_side == 721
    patches = PromptTokenCounter(backend, "pixtral")
    assert patches.learn_images(question, text + 825) and patches.useful_side is None
