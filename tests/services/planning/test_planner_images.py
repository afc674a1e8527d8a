"""Images in the plan: the question carries its images (with passages too), the history
keeps its own, the warmed prefix is what the images leave unchanged, and compression
summarises only the turns before the first image."""

from __future__ import annotations

from client.backends import OllamaBackend
from client.backends.ollama import chat_body
from client.core.conversation import ChatMessage
from client.core.images import ImagePart
from client.services.planning.compression import older_turns
from client.services.planning.planner import Passage, PlanInput, PlanSettings, Route, plan_request

ROUTE = Route(OllamaBackend("http://127.0.0.1:9"), "seer", "Lab")
PHOTO = ImagePart(b"jpeg bytes", "image/jpeg", 1024, 768)
CHART = ImagePart(b"png bytes", "image/png", 640, 480)
HISTORY = [ChatMessage("user", "first", (CHART,)), ChatMessage("assistant", "a chart")]


def plan(**given: object) -> tuple[ChatMessage, ...]:
    base = {"history": HISTORY, "text": "and this?", "settings": PlanSettings(), "routes": [ROUTE]}
    return plan_request(PlanInput(**{**base, **given})).messages  # type: ignore[arg-type]


def test_the_question_and_the_history_keep_their_images() -> None:
    messages = plan(images=(PHOTO,))
    assert [m.images for m in messages] == [(CHART,), (), (PHOTO,)]
    body = chat_body(plan_request(PlanInput(HISTORY, "q", PlanSettings(), [ROUTE])).request())
    assert "images" in body["messages"][0] and "images" not in body["messages"][-1]


def test_passages_go_beside_the_images_and_leave_them_alone() -> None:
    [*_, question] = plan(images=(PHOTO,), passages=[Passage("notes.md:1", "a fact")])
    assert question.images == (PHOTO,)
    assert "[1] notes.md:1" in question.content and question.content.endswith("and this?")


def test_images_do_not_change_the_warmed_prefix() -> None:
    given = PlanInput(HISTORY, "and this?", PlanSettings(), [ROUTE])
    with_image = plan_request(
        PlanInput(HISTORY, "and this?", PlanSettings(), [ROUTE], images=(PHOTO,))
    )
    assert plan_request(given).prefix == with_image.prefix


def test_compression_summarises_only_the_turns_before_the_first_image() -> None:
    history = [
        ChatMessage("user", "one"),
        ChatMessage("assistant", "1"),
        ChatMessage("user", "look", (PHOTO,)),
        ChatMessage("assistant", "2"),
        *[ChatMessage("user" if n % 2 == 0 else "assistant", str(n)) for n in range(6)],
    ]
    older, covered = older_turns(history, list(range(len(history))))
    assert [m.content for m in older] == ["one", "1"] and covered == (0, 1)
