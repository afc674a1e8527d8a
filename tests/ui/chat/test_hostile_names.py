"""A server with hostile model names and errors, and one with 10,000 models: the window
shows every name escaped (nothing acts), sends the raw name back, and stays usable."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tests.ui.conftest import until
from tests.ui.scripted_server import ScriptedOllama

HOSTILE = "evil\x1b[31m\u202egguf.exe\r\n"
ERROR = "boom\x1b[2J\u202e\x00 fake"


class NamedServer(ScriptedOllama):
    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    async def _tags(self, _: web.Request) -> web.Response:
        return web.json_response({"models": [{"name": name} for name in self.names]})


def texts_shown(app: Any) -> str:
    bar, window = app.window.server_bar, app.window
    picker = bar.model_picker
    items = [picker.itemText(i) for i in range(picker.count())]
    labels = [picker.toolTip(), window.stage_label.text(), window.outcome_bar.message_label.text()]
    return "\n".join([*items, *labels, window.chat_view.toPlainText()])


def test_hostile_model_names_and_errors_are_shown_escaped(make_app: Any, run: Any) -> None:
    server = NamedServer([HOSTILE, "plain:1b"])
    run(server.start())
    try:
        server.scripts.append([("status", 500, ERROR)])
        app = make_app(server.url, model=None)
        picker = app.window.server_bar.model_picker
        assert picker.currentText() == "evil\\x1b[31m\\u202egguf.exe\\r\\n"
        assert app.page.session.model == HOSTILE  # the raw name is what is chosen

        async def ask() -> None:
            app.page.send("hello")
            await until(lambda: app.window.outcome_bar.isVisible())

        run(ask())
        assert server.requests[-1]["model"] == HOSTILE  # sent back exactly as listed
        shown = texts_shown(app)
        assert "\\x1b[2J\\u202e\\x00 fake" in shown, shown
        assert not any(c in shown for c in "\x1b\u202e\x00\r"), repr(shown)
    finally:
        run(server.stop())


def test_ten_thousand_models_fill_the_picker_and_stay_choosable(make_app: Any, run: Any) -> None:
    names = [f"family-{n % 50}/model-{n:05d}:q4_K_M" for n in range(10_000)]
    server = NamedServer(names)
    run(server.start())
    try:
        app = make_app(server.url, model=names[7_777])
        bar = app.window.server_bar
        assert bar.model_picker.count() == 10_000 + 3  # and the local model, under its name
        assert bar.current_model() == names[7_777] == app.page.session.model
        bar.model_picker.setCurrentIndex(bar.model_picker.count() - 1)  # the last one
        assert bar.current_model() == names[9_999] == app.page.session.model
        bar.set_models([], None)
        assert bar.model_names() == [] and bar.current_model() is None
    finally:
        run(server.stop())
