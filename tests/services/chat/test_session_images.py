"""A question with images, end to end against the lab's vision model: stored with the
question, sent on each API, sent again with the history; a text model's refusal said
in plain words with the question kept; a cascade sends images only to a model that sees."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

from client.backends import OllamaBackend, OpenAICompatBackend
from client.core.images import Attachment
from client.lab import LabServer, scenario_from_dict
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome
from client.services.images.preparation import prepare_image
from client.services.images.vision import ModelVision
from client.services.planning.planner import Route
from client.store.conversations.history import HistoryStore
from client.store.conversations.images import ImageStore
from client.store.db import Database

pytestmark = pytest.mark.timeout(120)

DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "tokens_per_tile": 100}
MODELS = {"models": {"seer": {"vision": True}, "reader": {}}}


def photo(width: int = 2048, height: int = 1536) -> Attachment:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 160, 40)).save(out, "JPEG")
    return prepare_image(out.getvalue(), "field.jpg")


@pytest.fixture
async def lab_url() -> AsyncIterator[str]:
    lab = LabServer(scenario_from_dict({**DIALS, **MODELS}))
    yield await lab.start()
    await lab.stop()


async def run(generation: Generation) -> list[Any]:
    return [event async for event in generation]


@pytest.mark.parametrize("api", ["ollama", "openai"])
async def test_the_vision_model_answers_and_the_image_is_kept(
    db: Database, lab_url: str, api: str
) -> None:
    backend = OllamaBackend(lab_url) if api == "ollama" else OpenAICompatBackend(lab_url)
    history = HistoryStore(db)
    session = ChatSession(backend, "seer", history, server_name="Lab")
    image = photo()
    try:
        first = session.generate(None, "what is this?", images=[image])
        await run(first)
        assert first.finished is not None and first.finished.outcome is Outcome.COMPLETE
        assert first.request is not None
        assert first.request.messages[-1].images == (image.sent,)  # downscaled: 1024 x 768
        tokens = first.finished.metrics.prompt_tokens
        assert tokens is not None and tokens > 2 * 2 * 100  # 2 x 2 tiles of 512 px
        assert first.user_message_id is not None
        assert ImageStore(db).attachments(first.user_message_id) == [image]

        again = session.generate(first.conversation_id, "and the colour?")
        await run(again)
        assert again.request is not None
        sent = again.request.messages
        assert [m.images for m in sent] == [(image.sent,), (), ()]  # with the history
    finally:
        await backend.aclose()


async def test_a_text_model_says_it_cannot_see_and_the_question_is_kept(
    db: Database, lab_url: str
) -> None:
    backend = OpenAICompatBackend(lab_url)
    history = HistoryStore(db)
    session = ChatSession(backend, "reader", history, server_name="Lab")
    try:
        generation = session.generate(None, "what does this say?", images=[photo(64, 64)])
        await run(generation)
    finally:
        await backend.aclose()
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.FAILED
    assert finished.error_message.startswith("This model (reader) cannot see images")
    vision = ModelVision()  # vLLM did not say: the refusal teaches it
    assert generation.route is not None and vision.why_not(generation.route) == ""
    assert vision.learn(generation.route, generation.error)
    assert vision.why_not(generation.route).startswith("reader cannot see images")
    assert generation.conversation_id is not None
    path = history.active_path(generation.conversation_id)
    assert path[0].content == "what does this say?"
    assert ImageStore(db).attachments(path[0].id) != []


async def test_a_cascade_sends_an_image_only_to_the_model_that_sees(
    db: Database, lab_url: str
) -> None:
    backend = OllamaBackend(lab_url)
    fast = Route(backend, "reader", "Lab", tier="fast")
    strong = Route(backend, "seer", "Lab", tier="strong")
    session = ChatSession(backend, "reader", HistoryStore(db), server_name="Lab")
    session.use_routes([fast, strong])
    session.vision = ModelVision()
    try:
        short = session.generate(None, "hi", images=[photo(64, 64)])  # the rules say fast
        await run(short)
        assert short.route == strong
        assert short.plan is not None and "seer can see the image" in short.plan.why
        words = session.generate(None, "hi")  # no image: the rules' route
        await run(words)
        assert words.route == fast
        assert short.assistant_message_id is not None
        again = session.regenerate(short.assistant_message_id)  # the stored image counts
        await run(again)
        assert again.route == strong
    finally:
        await backend.aclose()


async def test_a_follow_up_to_a_text_model_gets_a_note_instead_of_the_image(
    db: Database, lab_url: str
) -> None:
    backend = OllamaBackend(lab_url)  # its /api/show says which model sees
    session = ChatSession(backend, "seer", HistoryStore(db), server_name="Lab")
    session.vision = ModelVision()
    try:
        first = session.generate(None, "what is this?", images=[photo()])
        await run(first)
        assert first.finished is not None and first.finished.outcome is Outcome.COMPLETE
        session.use_model("reader")  # the user switched to a text model
        follow = session.generate(first.conversation_id, "and what is a field?")
        await run(follow)
    finally:
        await backend.aclose()
    assert follow.finished is not None and follow.finished.outcome is Outcome.COMPLETE
    assert follow.request is not None and follow.request.model == "reader"
    sent = follow.request.messages
    assert [m.images for m in sent] == [(), (), ()]
    assert sent[0].content == "what is this?\n\n[an image was attached here]"
    tokens = follow.finished.metrics.prompt_tokens  # the lab counted no image tiles
    assert tokens is not None and tokens < 2 * 2 * 100


async def test_a_model_that_refused_an_image_gets_the_note_on_retry(
    db: Database, lab_url: str
) -> None:
    backend = OpenAICompatBackend(lab_url)  # vLLM's dialect: no server says who sees
    session = ChatSession(backend, "seer", HistoryStore(db), server_name="Lab")
    session.vision = vision = ModelVision()
    try:
        first = session.generate(None, "what is this?", images=[photo(64, 64)])
        await run(first)
        session.use_model("reader")
        refused = session.generate(first.conversation_id, "and what is a field?")
        await run(refused)
        assert refused.finished is not None and refused.finished.outcome is Outcome.FAILED
        assert vision.learn(refused.route, refused.error)  # as the window learns it
        assert refused.assistant_message_id is not None
        again = session.retry(refused.assistant_message_id)
        await run(again)
    finally:
        await backend.aclose()
    assert again.finished is not None and again.finished.outcome is Outcome.COMPLETE
    assert again.request is not None
    assert [m.images for m in again.request.messages] == [(), (), ()]
    assert again.request.messages[0].content.endswith("[an image was attached here]")


async def test_a_cascade_sends_the_history_image_only_to_the_model_that_sees(
    db: Database, lab_url: str
) -> None:
    backend = OllamaBackend(lab_url)
    fast = Route(backend, "reader", "Lab", tier="fast")
    strong = Route(backend, "seer", "Lab", tier="strong")
    session = ChatSession(backend, "reader", HistoryStore(db), server_name="Lab")
    session.use_routes([fast, strong])
    session.vision = ModelVision()
    image = photo(64, 64)
    try:
        first = session.generate(None, "what is this?", images=[image])
        await run(first)
        assert first.route == strong
        short = session.generate(first.conversation_id, "thanks")  # the rules: fast
        await run(short)
        assert first.assistant_message_id is not None
        proof = session.generate(first.conversation_id, "Prove it step by step")  # strong
        await run(proof)
    finally:
        await backend.aclose()
    assert short.finished is not None and short.finished.outcome is Outcome.COMPLETE
    assert short.route == fast and short.request is not None
    assert short.request.messages[0].images == ()
    assert short.request.messages[0].content.endswith("[an image was attached here]")
    assert proof.route == strong and proof.request is not None
    assert proof.request.messages[0].images == (image.sent,)  # a model that sees keeps it
    assert proof.plan is not None and proof.plan.fallback_messages is not None
    assert proof.plan.fallback_messages[0].images == ()  # its fast fallback would get the note
