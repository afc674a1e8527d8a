"""Plays a flow (client/ui/demo/flow_file.py) in the real window against the latency lab.

Each step acts as a user does (types and clicks Send, clicks a button of the bar of
choices, a shortcut, a model in the picker) or as the presenter does (the lab's live
control), waits until the window settles (the answer ended, or the window offers a
choice while it waits), and notes what the user saw: the answer's state and text, the
status line and every line shown meanwhile, the HUD's tier, the bar's sentence and
buttons. `tachy lab check` (client/cli/lab/check.py) prints it; tests/ui/demo/test_flows.py
plays every bundled scenario through `run_flow`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QMessageLogContext,
    QSettings,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QPushButton

from client.lab import ScenarioError, load_scenario
from client.lab.running.live import command
from client.services.chat.turn_state import TurnState
from client.services.tools.server_settings import DEMO_SERVER_NAME, demo_tool_server
from client.ui.common.turn_words import turn_word
from client.ui.demo.flow_file import Flow, FlowStep, Seen, comparable, read_flow, unmet
from client.ui.hud.hud_controller import VIEWS_DELAY_MS
from client.ui.tools.tool_turn_view import ApprovalCard, tool_state_text

if TYPE_CHECKING:
    from client.lab import RunningLab
    from client.ui.shell.app import TachyApp

POLL_S = 0.005


class StepFailed(Exception):
    """A step that could not be played (no such button, never settled): one sentence."""


@dataclass
class StepResult:
    step: FlowStep
    seen: Seen | None
    misses: list[str] = field(default_factory=list)
    error: str = ""  # the step could not be played; the flow stopped there

    @property
    def passed(self) -> bool:
        return not self.misses and not self.error


@dataclass
class FlowResult:
    name: str
    lab_url: str
    model: str
    api: str
    steps: list[StepResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(step.passed for step in self.steps)


def english_figures() -> None:
    """Numbers in the window as in the report: 1,213 and 0.4, whatever the locale."""
    from PySide6.QtCore import QLocale

    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))


def check_flow(path: Path, data_dir: Path) -> FlowResult:
    """The whole check in this process: a QApplication (offscreen when the caller set
    QT_QPA_PLATFORM), a qasync loop, the lab on a free loopback port, the window.
    FlowError or ScenarioError when the file cannot be played."""
    import qasync

    from client.lab import run_in_thread
    from client.ui.shell.app import track_async_generators

    flow = read_flow(path)
    scenario = load_scenario(path)
    qInstallMessageHandler(_without_offscreen_noise)
    qt = QApplication.instance() or QApplication([sys.argv[0]])
    loop = qasync.QEventLoop(qt)
    asyncio.set_event_loop(loop)
    track_async_generators(loop)
    lab = run_in_thread(scenario)
    try:
        return loop.run_until_complete(run_flow(flow, lab, data_dir, path.stem))
    finally:
        lab.stop()
        loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()


def _without_offscreen_noise(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    # The offscreen platform warns each time a window's size hints change.
    if "propagateSizeHints" not in message:
        print(message, file=sys.stderr)


async def run_flow(flow: Flow, lab: RunningLab, data_dir: Path, name: str) -> FlowResult:
    """Open a window on `lab`, play `flow` in it, close it; what was seen at each step."""
    model = flow.model or lab.server.scenario.served()[0].model
    app = await open_window(lab.url, flow, model, data_dir)
    result = FlowResult(name, lab.url, model, flow.api)
    try:
        await play(app, lab, flow, result)
    finally:
        await close_window(app)
    return result


async def open_window(url: str, flow: Flow, model: str, data_dir: Path) -> TachyApp:
    from client.services.storage.stores import open_stores
    from client.ui.shell.app import TachyApp

    stores = open_stores(data_dir / "tachy.sqlite3")
    settings = QSettings(str(data_dir / "window.ini"), QSettings.Format.IniFormat)
    app = TachyApp(stores, settings, warm_models=flow.warm)
    app.window.show()
    app.window.activateWindow()
    await app.start(url, flow.api, model)
    if flow.tools:  # the Demo menu's demo tools, lent as it lends them (taken back at close)
        tools = app.tachy.turn_tools
        tools.lend(demo_tool_server())
        tools.servers.approval.for_now(DEMO_SERVER_NAME, flow.tools == "ask")
    session = app.page.session
    if session is not None:
        if flow.slow_start_after_s is not None:
            session.configure(slow_start_after_s=flow.slow_start_after_s)
        if flow.stall_timeout_s is not None:
            session.configure(stall_timeout_s=flow.stall_timeout_s)
    return app


async def close_window(app: TachyApp) -> None:
    try:
        await app.aclose()
    finally:
        app.stores.close()
        app.window.close()
        app.window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


async def play(app: TachyApp, lab: RunningLab, flow: Flow, result: FlowResult) -> None:
    before: Seen | None = None
    for step in flow.steps:
        began = time.monotonic()
        try:
            stages = await _act(app, lab, step)
        except StepFailed as failed:
            result.steps.append(StepResult(step, None, error=str(failed)))
            return  # what follows depended on this step
        await _hud_views_shown()
        seen = see(app, stages, time.monotonic() - began)
        result.steps.append(StepResult(step, seen, unmet(step.expect, seen, before)))
        before = seen


async def _act(app: TachyApp, lab: RunningLab, step: FlowStep) -> list[str]:
    """Do the step; the status lines shown until the window settled."""
    if step.action == "wait":
        return await _watch(app, step, lambda: False, step.seconds)
    if step.action == "control":
        await _control(lab, step.text)
        return []
    if step.action == "model":
        _pick_model(app, step.text)
        return []
    if step.action == "send":
        app.window.composer.setPlainText(step.text)
        _click(app.window.send_button, "Send")
    elif step.action == "press":
        _click(_button(app, step.text), step.text)
    else:
        _shortcut(app, step.text)
    return await _watch(app, step, lambda: _settled(app, step.until), step.timeout_s)


async def _watch(
    app: TachyApp, step: FlowStep, done: Callable[[], bool], timeout_s: float
) -> list[str]:
    """Serve the loop until done() (or timeout_s for a wait), noting each status line."""
    stages: dict[str, str] = {}
    label = app.window.stage_label
    deadline = time.monotonic() + timeout_s
    while not done():
        if label.text():
            stages[comparable(label.text())] = label.text()
        if time.monotonic() > deadline:
            if step.action == "wait":
                break
            raise StepFailed(f"the window did not settle within {timeout_s:g} s")
        await asyncio.sleep(POLL_S)
    if label.text():  # the line it settled on (the approval's, as it came)
        stages[comparable(label.text())] = label.text()
    return list(stages.values())


def _settled(app: TachyApp, until: str) -> bool:
    if not app.page.busy:
        return True
    if until == "answering":
        view = app.window.chat_view
        last = view.message(view.keys()[-1]) if view.keys() else None
        return last is not None and last.role == "assistant" and bool(last.text)
    if until == "tool":
        generation = app.page.runner.generation  # a tool runs, and the status line says so
        if generation is None or generation.state is not TurnState.USING_TOOL:
            return False
        return comparable(app.window.stage_label.text()) == comparable(tool_state_text(generation))
    bar = app.window.outcome_bar
    card = _card(app)
    if card is not None and card.asking:  # the approval card asks, and the status line says so
        return app.window.stage_label.text() == turn_word(TurnState.APPROVAL)
    return bar.isVisible() and bool(bar.buttons)  # a choice offered while it waits


def _card(app: TachyApp) -> ApprovalCard | None:
    return app.window.findChild(ApprovalCard, "approvalCard")


async def _hud_views_shown() -> None:
    """The HUD shows a reply's tier one frame after its end (hud_link.VIEWS_DELAY_MS): a
    timer started now with the same delay fires after it."""
    shown: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def fire() -> None:
        if not shown.done():
            shown.set_result(None)

    QTimer.singleShot(VIEWS_DELAY_MS, fire)
    await shown


def see(app: TachyApp, stages: list[str], seconds: float) -> Seen:
    w = app.window
    view = w.chat_view
    answers = [view.message(key) for key in view.keys() if view.message(key).role == "assistant"]
    keys = view.keys()
    last = view.message(keys[-1]) if keys else None
    answer = last if last is not None and last.role == "assistant" else None
    bar = w.outcome_bar
    shown = bar.isVisible()
    tier, ttft = _hud_tier(app)
    return Seen(
        state=answer.state if answer else "",
        text=answer.text if answer else "",
        thinking=answer.thinking if answer else "",
        stage=w.stage_label.text(),
        stages=tuple(stages),
        tier=tier,
        ttft_ms=ttft,
        banner=bar.message_label.text() if shown else "",
        buttons=tuple(b.text() for b in bar.buttons.values()) if shown else (),
        answers=len(answers),
        seconds=seconds,
        card=_card_text(app),
    )


def _card_text(app: TachyApp) -> str:
    card = _card(app)
    if card is None or not card.isVisible():
        return ""
    return f"{card.question.text()} {card.arguments.text()}"


def _hud_tier(app: TachyApp) -> tuple[str, float | None]:
    hud = app.hud
    if hud is None:
        return "", None
    tier = hud.tier.shown_tier()
    records = hud.book.records
    ttft = records[-1].ttft_ms if records and tier is not None else None
    return (str(tier) if tier is not None else "none"), ttft


# --- acting as the user --------------------------------------------------------------
def _click(button: QPushButton, name: str) -> None:
    if not button.isVisible() or not button.isEnabled():
        raise StepFailed(f"{name} cannot be pressed now")
    button.click()


def _button(app: TachyApp, wanted: str) -> QPushButton:
    """A button of the bar of choices by its label or name, else of the approval card,
    else Send or Stop."""
    w = app.window
    key = wanted.strip().casefold()
    offered = w.outcome_bar.buttons if w.outcome_bar.isVisible() else {}
    for name, button in offered.items():
        if key in (name.casefold(), button.text().casefold()):
            return button
    card = _card(app)
    asking = (card.allow, card.always, card.deny) if card and card.isVisible() else ()
    for button in (*asking, w.send_button, w.stop_button):
        if key == button.text().casefold():
            return button
    labels = ", ".join(b.text() for b in offered.values()) or "none"
    raise StepFailed(f"no button {wanted!r} is offered (the bar offers: {labels})")


def _shortcut(app: TachyApp, keys: str) -> None:
    wanted = QKeySequence(keys)
    for shortcut in app.window.shortcuts.values():
        if shortcut.key().matches(wanted) == QKeySequence.SequenceMatch.ExactMatch:
            shortcut.activated.emit()
            return
    raise StepFailed(f"the window has no shortcut {keys!r}")


def _pick_model(app: TachyApp, model: str) -> None:
    picker = app.window.server_bar.model_picker
    index = picker.findText(model)
    if index < 0:
        shown = ", ".join(picker.itemText(i) for i in range(picker.count())) or "none"
        raise StepFailed(f"the model picker has no {model!r} (it lists: {shown})")
    picker.setCurrentIndex(index)


async def _control(lab: RunningLab, words: str) -> None:
    """The lab's live control, in the words `tachy lab` reads on stdin ("tier slow")."""
    try:
        body = command(words)
        await asyncio.get_running_loop().run_in_executor(None, lab.control, body)
    except ScenarioError as exc:
        raise StepFailed(str(exc)) from None
