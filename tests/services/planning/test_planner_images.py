"""Images in the plan: the question carries its images (with passages too), the history
keeps its own for a model that sees and a note for one that cannot, the warmed prefix is
what the images leave unchanged, images count in the prompt tokens, and compression
summarises only the turns before the first image."""

from __future__ import annotations

from dataclasses import replace

from client.backends import OllamaBackend
from client.backends.apis.ollama.backend import chat_body
from client.core.conversation import ChatMessage
from client.core.images import ImagePart, estimate_image_tokens
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


READER = Route(OllamaBackend("http://127.0.0.1:9"), "reader", "Lab")
FAST = Route(READER.backend, "reader", "Lab", tier="fast")
STRONG = Route(READER.backend, "seer", "Lab", tier="strong")


def sees(route: Route) -> bool:
    return route.model == "seer"


def test_a_model_that_cannot_see_gets_a_note_instead_of_the_historys_images() -> None:
    history = [*HISTORY, ChatMessage("user", "", (PHOTO, CHART)), ChatMessage("assistant", "b")]
    messages = plan(history=history, routes=[READER], sees=sees)
    assert [m.images for m in messages] == [(), (), (), (), ()]
    assert messages[0].content == "first\n\n[an image was attached here]"
    assert messages[2].content == "[2 images were attached here]"
    assert plan(history=history, routes=[ROUTE], sees=sees)[0].images == (CHART,)
    assert plan(history=history, routes=[READER])[0].images == (CHART,)  # not known: sent


def test_a_text_fallback_behind_a_model_that_sees_gets_the_note() -> None:
    given = PlanInput(HISTORY, "Prove it step by step", PlanSettings(), [FAST, STRONG], sees=sees)
    planned = plan_request(given)
    assert planned.route == STRONG and planned.messages[0].images == (CHART,)
    assert planned.fallback == FAST and planned.fallback_messages is not None
    assert planned.fallback_messages[0].images == ()
    assert planned.fallback_messages[-1] == planned.messages[-1]
    short = plan_request(PlanInput(HISTORY, "hi", PlanSettings(), [FAST, STRONG], sees=sees))
    assert short.route == FAST and short.messages[0].images == ()
    assert short.fallback == STRONG and short.fallback_messages is None


def test_a_question_with_images_has_no_fallback_that_cannot_see() -> None:
    given = PlanInput([], "Prove it step by step", PlanSettings(), [FAST, STRONG], sees=sees)
    assert plan_request(replace(given, images=(PHOTO,))).fallback is None
    assert plan_request(given).fallback == FAST


def test_an_attached_image_grows_the_planned_prompt_tokens_and_the_predicted_wait() -> None:
    given = PlanInput([], "what is this?", PlanSettings(), [ROUTE], ttft=lambda n: 2.0 * n)
    without = plan_request(given)
    with_image = plan_request(replace(given, images=(PHOTO,)))
    assert estimate_image_tokens(PHOTO) == 2 * 2 * 256  # 1,024 x 768: 2 x 2 tiles of 512 px
    assert with_image.prompt_tokens == without.prompt_tokens + 1024
    assert with_image.new_prompt_tokens == without.new_prompt_tokens + 1024
    assert without.predicted_ttft_ms is not None and with_image.predicted_ttft_ms is not None
    assert with_image.predicted_ttft_ms > without.predicted_ttft_ms


def test_the_budget_counts_the_historys_images() -> None:
    settings = PlanSettings(budget=600)  # the chart (2 x 1 tiles, 512 tokens) and a bit
    planned = plan_request(PlanInput(HISTORY, "and this?", settings, [ROUTE]))
    assert planned.cut.count == 0 and planned.prompt_tokens > 512
    tight = plan_request(PlanInput(HISTORY, "and this?", PlanSettings(budget=100), [ROUTE]))
    assert tight.cut.count == 2  # the image turn did not fit
    noted = plan_request(
        PlanInput(HISTORY, "and this?", PlanSettings(budget=100), [READER], sees=sees)
    )
    assert noted.cut.count == 0  # as a note it fits
