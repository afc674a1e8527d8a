"""The window with images: paste a screenshot, send it, the lab's vision model answers,
the question shows the picture (a click opens it full size) and the waterfall what the
image cost; a text model's Attach button is off and says why."""

from __future__ import annotations

import io
import re
from typing import Any

from PIL import Image
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import QLabel

from client.lab import run_in_thread, scenario_from_dict
from tests.ui.conftest import until

DIALS = {"ttft": 5, "tpot_ms": 2, "output_tokens": 6, "seed": 1, "tokens_per_tile": 100}
MODELS = {"models": {"seer": {"vision": True}, "reader": {}}}


def screenshot_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1920, 1080), (240, 240, 240)).save(out, "PNG")
    return out.getvalue()


def paste(window: Any, qtbot: Any, data: bytes) -> None:
    mime = QMimeData()
    mime.setData("image/png", data)
    QGuiApplication.clipboard().setMimeData(mime)
    window.composer.setFocus()
    qtbot.keyClick(window.composer, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    # The window copied the bytes in the key press. Left on the clipboard, this mime
    # data (made here, in Python) was deleted by Qt's clipboard at the process's exit,
    # after Python had finalized: a segfault of the worker that ran this test.
    QGuiApplication.clipboard().clear()


def test_paste_send_and_see_what_the_image_cost(make_app: Any, run: Any, qtbot: Any) -> None:
    lab = run_in_thread(scenario_from_dict({**DIALS, **MODELS}))
    try:
        app = make_app(lab.url, api="ollama", model="seer")
        window, images = app.window, app.attachments
        run(until(lambda: app.page.session is not None))
        images.follow_route()
        paste(window, qtbot, screenshot_png())
        run(until(lambda: len(images.waiting.images) == 1))
        assert len(images.tray.thumbnails) == 1
        assert images.waiting.images[0].sent.width == 1024  # cut to the model's size
        assert window.composer.toPlainText() == ""  # the picture did not go in as text
        # Issue 39, item 15: what preparing it did, where the image is.
        [cost] = images.tray.thumbnails[0].findChildren(QLabel, "imageCost")
        said = cost.text()
        assert re.fullmatch(r"1920×1080, [\d.,]+ KB → sent 1024×576, [\d,]+ KB", said)

        window.composer.setPlainText("what does this say?")
        qtbot.keyClick(window.composer, Qt.Key.Key_Return)
        assert images.tray.thumbnails == [] and images.waiting.images == []
        run(until(lambda: not app.page.runner.busy))
        generation = app.page.runner.generation
        assert generation is not None and generation.finished is not None
        assert generation.finished.outcome.value == "complete"

        document: QTextDocument = window.chat_view.document()
        [token] = images._sent
        name = f"{window.chat_view.action_scheme}-image:{token}"
        assert not document.resource(QTextDocument.ResourceType.ImageResource, name).isNull()
        assert said in document.toPlainText()  # and under the question in the chat
        window.chat_view.actionRequested.emit("image", token)  # a click on the picture
        assert images.viewers and images.viewers[-1].picture.pixmap().width() == 1920

        # Reopened, the question shows its stored picture; a click opens the original.
        app.page.show_conversation(app.page.conversation_id)
        run(until(lambda: images._stored))
        [(stored, (message_id, _))] = images._stored.items()
        assert message_id == generation.user_message_id
        window.chat_view.actionRequested.emit("image", stored)
        run(until(lambda: len(images.viewers) == 2))
        assert images.viewers[-1].picture.pixmap().width() == 1920

        assert app.hud is not None
        run(until(lambda: any(t.startswith("image ×") for t in app.hud.waterfall.row_texts())))
        [row] = [t for t in app.hud.waterfall.row_texts() if t.startswith("image ×")]
        assert re.match(r"image ×1 · [\d,]+ KB · 589,824 px · [\d,]+ tokens", row)
    finally:
        lab.stop()


def test_a_model_that_cannot_see_turns_the_button_off(make_app: Any, run: Any, qtbot: Any) -> None:
    lab = run_in_thread(scenario_from_dict({**DIALS, **MODELS}))
    try:
        app = make_app(lab.url, api="ollama", model="reader")
        images = app.attachments
        run(until(lambda: app.page.session is not None))
        images.follow_route()
        button = images.tray.attach_button
        run(until(lambda: not button.isEnabled()))
        assert button.toolTip() == "reader cannot see images (the server says it has no vision)."
        paste(app.window, qtbot, screenshot_png())
        assert images.waiting.images == []
        assert images.tray.problem.text() == button.toolTip()
        # Issue 39, item 15: the model of the server that can see is offered, and
        # taking the offer attaches the image that was refused.
        offer = images.tray.offer_button
        run(until(lambda: offer.isVisible()))
        assert re.fullmatch(r"Use seer(:latest)?, which can see", offer.text())
        offer.click()
        run(until(lambda: app.page.session.model.startswith("seer")))
        run(until(lambda: len(images.waiting.images) == 1))
        assert images.tray.problem.text() == "" and not offer.isVisible()
    finally:
        lab.stop()


def test_a_server_that_did_not_say_refuses_and_the_question_stays(
    make_app: Any, run: Any, qtbot: Any
) -> None:
    lab = run_in_thread(scenario_from_dict({**DIALS, **MODELS}))  # vLLM: no /props
    try:
        app = make_app(lab.url, api="openai", model="reader")
        images = app.attachments
        run(until(lambda: app.page.session is not None))
        images.follow_route()
        run(until(lambda: not images.tasks))  # asked: the server does not say
        assert images.tray.attach_button.isEnabled()
        paste(app.window, qtbot, screenshot_png())
        run(until(lambda: len(images.waiting.images) == 1))
        app.window.composer.setPlainText("what does this say?")
        qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)
        run(until(lambda: not images.tray.attach_button.isEnabled()))
        label = app.window.outcome_bar.findChild(QLabel) or app.window.stage_label
        shown = app.window.stage_label.text() + " " + label.text()
        assert "This model (reader) cannot see images" in shown
        assert "reader cannot see images" in images.tray.attach_button.toolTip()
    finally:
        lab.stop()


def test_a_pasted_image_lengthens_the_wait_predicted_under_the_composer(
    make_app: Any, run: Any, qtbot: Any
) -> None:
    lab = run_in_thread(scenario_from_dict({**DIALS, **MODELS}))
    try:
        app = make_app(lab.url, api="ollama", model="seer", warm_models=True)
        window, images, warming = app.window, app.attachments, app.warming
        run(until(lambda: app.page.session is not None))
        assert warming is not None
        for tokens, ttft_ms in [(20, 60.0), (500, 300.0), (2000, 1100.0)]:
            warming.policy.predictor.observe(tokens, ttft_ms)  # as if it had learned
        images.follow_route()
        # Type-ahead off, as a user can: a read of the text finishing between the two
        # predictions would take the text's tokens out of the second (cached by then).
        warming.type_ahead.action.setChecked(False)
        window.composer.setPlainText("what does this say?")
        run(until(lambda: warming.prediction_label.text() != ""))
        plain = warming.policy.draft
        paste(window, qtbot, screenshot_png())
        assert plain is not None
        # No keystroke: the paste did it.
        run(until(lambda: (d := warming.policy.draft) is not None and d.tokens > plain.tokens))
        assert warming.policy.draft is not None
        assert warming.policy.draft.tokens == plain.tokens + 2 * 2 * 256  # 1,024 x 576
        predicted, before = warming.policy.draft.predicted_ms, plain.predicted_ms
        assert predicted is not None and before is not None and predicted > before
    finally:
        lab.stop()
