"""The window in Chinese: every message of client/ui has a finished zh_CN translation,
the shipped .qm is compiled from the .ts, Qt's own strings are translated, and the
running window in zh_CN shows no English word outside the names it keeps on purpose."""

from __future__ import annotations

import re
import shutil
import string
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTableWidget,
    QTabWidget,
    QWidget,
)

from client.core.tiers import Tier
from client.lab.scenarios.scenario import PRESETS
from client.services.hud.hud_model import TIER_BEHAVIOUR
from client.services.servers.servers import LOCAL_ENGINE_LABEL
from client.ui.common.tier_words import TIER_BEHAVIOUR as SHOWN_BEHAVIOUR
from client.ui.demo.demo_menu import LAB_NAME, SCENARIO_NAMES
from client.ui.servers.server_bar import OWN_SERVER_NAMES
from client.ui.shell.app import TachyApp
from client.ui.shell.translations import LANGUAGE_KEY, chosen_language

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "packaging"))
import translations as pipeline  # noqa: E402  (packaging/ is not a package)

TS = pipeline.ts_file("zh_CN")
CATALOGUES = [pipeline.ts_file("zh_CN", catalogue=name) for name in pipeline.CATALOGUES]
CATALOGUES.append(pipeline.ts_file(pipeline.PLURALS_ONLY))  # English: its plural forms
# Words the Chinese window keeps in Latin letters: names, units, keys, the design's
# metric names (the same in bench and exports), file formats.
KEPT = {
    "Tachy", "Ollama", "OpenAI", "SmolLM2", "vLLM", "llama.cpp", "HUD", "TTFT", "API", "URL",
    "Markdown", "JSON", "CSV", "PNG", "SVG", "Ctrl", "Shift", "Enter", "Esc", "KV", "GiB",
    "ttft_ms", "tpot_ms", "tokens_per_s", "P50", "P95", "P99", "ms",
    "MCP",  # the Model Context Protocol, as "API": Settings > Tools (MCP servers)
    "QoE", "P5", "Andes", "arXiv",  # the QoE figure, its low tail, the paper it follows
    "English",  # the Language menu names each language in that language
}  # fmt: skip
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.]+")  # one letter is a key (Ctrl+F) or N


def _messages(ts: Path) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(ts).getroot()
    return [
        (context.findtext("name") or "", message.findtext("source") or "", message)
        for context in root.findall("context")
        for message in context.findall("message")
    ]


def _texts_of(message: ET.Element) -> list[str]:
    """A message's translation, or each of its plural forms ("%n stall(s)")."""
    translation = message.find("translation")
    if translation is None:
        return []
    forms = translation.findall("numerusform")
    return [form.text or "" for form in forms] if forms else [translation.text or ""]


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize(
    ("language", "catalogue"),
    [*(("zh_CN", name) for name in pipeline.CATALOGUES), (pipeline.PLURALS_ONLY, "tachy")],
)
def test_every_message_of_the_window_has_a_finished_translation(
    tmp_path: Path, language: str, catalogue: str
) -> None:
    committed = pipeline.ts_file(language, catalogue=catalogue)
    fresh = tmp_path / committed.name
    shutil.copyfile(committed, fresh)
    pipeline.update(fresh, catalogue)  # what pyside6-lupdate finds in the code today
    messages = _messages(fresh)
    least = 5 if language == pipeline.PLURALS_ONLY else 150 if catalogue == "tachy" else 10
    assert len(messages) > least
    unfinished = [
        f"{context}: {source!r}"
        for context, source, message in messages
        if (translation := message.find("translation")) is None
        or translation.get("type") in ("unfinished", "vanished", "obsolete")
        or not all(text.strip() for text in _texts_of(message))
    ]
    assert unfinished == [], "run packaging/translations.py update, then translate these"


@pytest.mark.parametrize("ts", CATALOGUES, ids=lambda ts: ts.stem)
def test_translations_keep_the_placeholders(ts: Path) -> None:
    for context, source, message in _messages(ts):
        for translation in _texts_of(message):
            assert _fields(translation) == _fields(source), f"{context}: {source!r}"
            assert source.count("&") == translation.count("&"), f"{context}: {source!r}"


@pytest.mark.parametrize("ts", CATALOGUES, ids=lambda ts: ts.stem)
def test_the_shipped_qm_is_compiled_from_the_ts(tmp_path: Path, ts: Path) -> None:
    compiled = tmp_path / ts.with_suffix(".qm").name
    pipeline.compile_qm(ts, compiled)
    assert compiled.read_bytes() == ts.with_suffix(".qm").read_bytes(), (
        "run packaging/translations.py compile"
    )


def test_marked_names_match_the_names_they_stand_for() -> None:
    assert list(SCENARIO_NAMES) == list(PRESETS)
    assert {LOCAL_ENGINE_LABEL, LAB_NAME} == set(OWN_SERVER_NAMES)
    assert {t: SHOWN_BEHAVIOUR[t] for t in Tier} == {t: TIER_BEHAVIOUR[t] for t in Tier}


def test_the_language_is_the_flag_then_the_setting_then_the_system(tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    assert chosen_language(None, settings) == QLocale.system().name()
    settings.setValue(LANGUAGE_KEY, "zh_CN")
    assert chosen_language(None, settings) == "zh_CN"
    assert chosen_language("en", settings) == "en"


def test_qt_dialog_buttons_are_translated_too(chinese: None) -> None:
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"
    assert QLocale().name() == "zh_CN"


def _texts(widget: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every text a user can see or a screen reader says."""
    name = f"{type(widget).__name__}#{widget.objectName()}"
    yield f"{name} tooltip", widget.toolTip()
    yield f"{name} accessible name", widget.accessibleName()
    if isinstance(widget, QLabel | QAbstractButton):
        yield f"{name} text", widget.text()
    if isinstance(widget, QLineEdit | QPlainTextEdit):
        yield f"{name} placeholder", widget.placeholderText()
    if isinstance(widget, QComboBox):
        yield from ((f"{name} item", widget.itemText(i)) for i in range(widget.count()))
    if isinstance(widget, QTabWidget):
        yield from ((f"{name} tab", widget.tabText(i)) for i in range(widget.count()))
    if isinstance(widget, QDockWidget):
        yield f"{name} title", widget.windowTitle()
    if isinstance(widget, QMenu):
        yield f"{name} title", widget.title()
    if isinstance(widget, QTableWidget):
        for column in range(widget.columnCount()):
            item = widget.horizontalHeaderItem(column)
            yield f"{name} header", item.text() if item else ""
    for action in widget.actions():
        yield f"{name} action", action.text()


def _english(text: str) -> list[str]:
    text = re.sub(r"\(&\w\)", "", text).replace("&", "")  # Chinese accelerators: 语言(&L)
    return [word for word in LATIN_WORD.findall(text) if word not in KEPT]


def test_the_window_in_chinese_shows_no_english(
    chinese: None, make_app: Callable[..., TachyApp], run: Any
) -> None:
    app = make_app()  # no server: the local engine stays "starting" (tests/ui/conftest.py)
    window = app.window
    app.window.composer.setPlainText("你好")  # the predicted-wait line and the warm state
    found = []
    bar = window.server_bar  # a model's name is the server's, never translated
    models = {name for server in bar.model_groups() for name in bar.models_of(server)}
    widgets = [window, *window.findChildren(QWidget)]
    for widget in widgets:
        for where, text in _texts(widget):
            if _english(text) and text not in models:
                found.append(f"{where}: {text!r}")
    for action in window.findChildren(QAction):
        if _english(action.text()):
            found.append(f"action {action.objectName()}: {action.text()!r}")
    assert window.windowTitle() == "Tachy"
    assert "发送" in window.send_button.text()
    assert found == [], "\n".join(found)


def test_the_add_server_dialog_in_chinese_shows_no_english(chinese: None, qtbot: Any) -> None:
    from client.ui.servers.server_dialog import AddServerDialog

    dialog = AddServerDialog()
    qtbot.addWidget(dialog)
    found = [
        f"{where}: {text!r}"
        for widget in [dialog, *dialog.findChildren(QWidget)]
        for where, text in _texts(widget)
        if _english(text) and where.split()[-1] != "placeholder"  # a sample URL
    ]
    assert dialog.windowTitle() == "添加服务器"
    buttons = {b.text() for b in dialog.findChildren(QAbstractButton)}
    assert {"保存", "取消"} <= buttons  # Qt's own Save / Cancel, from qtbase_zh_CN
    assert found == [], "\n".join(found)


def test_the_language_menu_remembers_the_choice_for_the_next_start(
    tmp_path: Path, qtbot: Any
) -> None:
    from PySide6.QtWidgets import QMenuBar

    from client.ui.shell.language_menu import LanguageMenu

    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    bar, status = QMenuBar(), QLabel()
    qtbot.addWidget(bar)
    menu = LanguageMenu(bar, settings, status)
    assert list(menu.actions) == ["", "en", "zh_CN"]  # system, then each shipped .qm
    assert menu.actions[""].isChecked()
    menu.actions["zh_CN"].trigger()
    assert settings.value(LANGUAGE_KEY) == "zh_CN" and menu.actions["zh_CN"].isChecked()
    assert chosen_language(None, settings) == "zh_CN"
    assert "next start" in status.text()


def test_every_fixed_waterfall_row_has_a_translatable_name() -> None:
    from client.services.chat.session_events import Stage
    from client.services.hud import waterfall
    from client.ui.common.turn_words import stage_word
    from client.ui.hud.tabs.waterfall_view import ROW_LABELS

    # The server's rows are each kind's phases (client/backends/kinds/<kind>/timings.py).
    kinds = Path(waterfall.__file__).parents[3] / "client" / "backends" / "kinds"
    files = [Path(waterfall.__file__), *sorted(kinds.glob("*/timings.py"))]
    source = "".join(path.read_text(encoding="utf-8") for path in files)
    fixed = set(re.findall(r'(?:WaterfallRow|ServerPhase)\(\s*"([^"]+)"', source))
    assert len(fixed) >= 10
    assert fixed - {s.value for s in Stage} <= set(ROW_LABELS), fixed - set(ROW_LABELS)
    # A stage's row is said as the turn's state, with the status line's words.
    assert all(stage_word(s.value) for s in Stage)
    assert stage_word("understanding") == "Reading your question"
