"""The Knowledge menu and what the window shows of the retrieving stage.

- "Use my documents in this conversation" (Ctrl+K): a toggle per conversation, kept
  in QSettings; a new conversation takes the last choice.
- "Add folder…" / "Add files…": indexed on the knowledge base's own thread; the
  status line shows the progress ("Indexing ~/notes: 120 of 5,000 files"), the window
  never waits. "Remove" lists the sources. The sources are polled while the app runs.
- The retrieving stage: "Searching your notes… 12 ms" on the status line when it
  ends; under the answer, its sources as links that open the file at that line.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QLocale, QObject, QSettings, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu

from client.services.chat.turn_state import TurnState
from client.services.knowledge.indexer import IndexProgress, ProgressCallback
from client.services.knowledge.knowledge import IndexReport, KnowledgeUnavailable
from client.services.knowledge.knowledge_stage import KnowledgeStage, Retrieved, open_in_editor
from client.ui.chat.render.messages.citations import citations_for
from client.ui.common.async_errors import KeptTasks, report
from client.ui.common.error_text import error_text
from client.ui.common.shortcuts import key_of
from client.ui.common.turn_words import turn_word

if TYPE_CHECKING:
    from client.services.chat.generation import Generation
    from client.services.tachy import Tachy
    from client.ui.chat.chat_page import ChatPage

SETTINGS_ON = "knowledge/conversations"  # ids with knowledge on
SETTINGS_NEW = "knowledge/new"  # the choice for a new conversation


class KnowledgeController(QObject):
    progressed = Signal(object)  # IndexProgress, from the indexing thread

    def __init__(self, page: ChatPage, tachy: Tachy) -> None:
        super().__init__(page)
        self.page = page
        self.window = page.window
        self.settings: QSettings = page.window.settings
        self.knowledge = tachy.knowledge
        self.stage = KnowledgeStage(self.knowledge, enabled=self._asked_with_knowledge)
        tachy.use_knowledge(self.stage)
        self.tasks = KeptTasks()
        self._build_menu()
        self.progressed.connect(self._show_progress)
        page.runner.retrieved.connect(self._on_retrieved)
        page.runner.ended.connect(self._on_ended)
        page.conversationChanged.connect(self._sync_toggle)
        self.window.chat_view.actionRequested.connect(self._on_action)
        self.watcher: asyncio.Task[Any] | None = None
        self.sources: list[str] = []  # what was added (for the Remove menu)

    def start_watching(self) -> None:
        """Poll the sources while the app runs (from its start, on the loop)."""
        if self.watcher is None:
            self.tasks.spawn(self.knowledge.open_for_search_async(), "knowledge open")
            self.tasks.spawn(self._refresh_sources(), "knowledge sources")
            self.watcher = self.tasks.spawn(self.knowledge.watch(self._on_change), "knowledge")

    # ---- the menu -----------------------------------------------------------------

    def _build_menu(self) -> None:
        menu = self.window.menuBar().addMenu(self.tr("&Knowledge"))
        menu.setObjectName("knowledgeMenu")
        self.menu = menu
        self.toggle = QAction(self.tr("Use my documents in this conversation"), menu)
        self.toggle.setObjectName("knowledgeToggle")
        self.toggle.setCheckable(True)
        self.toggle.setShortcut(QKeySequence(key_of("documents")))
        self.toggle.toggled.connect(self._set_on)
        menu.addAction(self.toggle)
        menu.addSeparator()
        menu.addAction(self.tr("Add folder…"), self.choose_folder).setObjectName(
            "knowledgeAddFolder"
        )
        menu.addAction(self.tr("Add files…"), self.choose_files).setObjectName("knowledgeAddFiles")
        self.remove_menu = QMenu(self.tr("Remove"), menu)
        self.remove_menu.setObjectName("knowledgeRemove")
        self.remove_menu.aboutToShow.connect(self._fill_remove_menu)
        menu.addMenu(self.remove_menu)
        self._sync_toggle(self.page.conversation_id)

    def _asked_with_knowledge(self, conversation_id: int | None) -> bool:
        """For the session: the shown conversation (or the new one being made from it)
        follows the toggle; another one its stored choice."""
        shown = self.page.conversation_id
        if shown is None or conversation_id == shown:
            return self.toggle.isChecked()
        return self.is_on(conversation_id)

    def is_on(self, conversation_id: int | None) -> bool:
        if conversation_id is None:
            return bool(self.settings.value(SETTINGS_NEW, False, type=bool))
        return conversation_id in self._on_ids()

    def _on_ids(self) -> set[int]:
        value = self.settings.value(SETTINGS_ON, []) or []
        items = value if isinstance(value, list) else [value]
        return {int(str(item)) for item in items if str(item).isdigit()}

    def _set_on(self, on: bool) -> None:
        conversation_id = self.page.conversation_id
        self.settings.setValue(SETTINGS_NEW, on)
        if conversation_id is not None:
            ids = self._on_ids()
            ids = ids | {conversation_id} if on else ids - {conversation_id}
            self.settings.setValue(SETTINGS_ON, sorted(ids))

    def _sync_toggle(self, conversation_id: int | None) -> None:
        # A new conversation that was asked with knowledge on keeps it on.
        if conversation_id is not None and self.toggle.isChecked():
            if conversation_id not in self._on_ids() and self._fresh(conversation_id):
                self._set_on(True)
        self.toggle.blockSignals(True)
        self.toggle.setChecked(self.is_on(conversation_id))
        self.toggle.blockSignals(False)

    def _fresh(self, conversation_id: int) -> bool:
        generation = self.page.runner.generation
        return generation is not None and generation.conversation_id == conversation_id

    # ---- adding and removing --------------------------------------------------------

    def choose_folder(self) -> None:
        dialog = QFileDialog(self.window, self.tr("Add a folder to your knowledge base"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(lambda path: self.add([path]))
        dialog.open()  # not exec(): the window keeps running

    def choose_files(self) -> None:
        dialog = QFileDialog(self.window, self.tr("Add files to your knowledge base"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(self.add)
        dialog.open()

    def add(self, paths: list[str]) -> asyncio.Task[Any]:
        loop = asyncio.get_running_loop()

        def progress(step: IndexProgress) -> None:  # on the indexing thread
            loop.call_soon_threadsafe(self.progressed.emit, step)

        return self.tasks.spawn(self._add(paths, progress), "knowledge add")

    async def _add(self, paths: list[str], progress: ProgressCallback) -> None:
        try:
            found = await self.knowledge.add_async(paths, progress)
        except KnowledgeUnavailable as error:
            self.window.stage_label.setText(error_text(str(error)))
            return
        self.window.stage_label.setText(self._summary(found))
        await self._refresh_sources()

    def _fill_remove_menu(self) -> None:
        # From the list kept by _refresh_sources: the menu never waits on the index.
        self.remove_menu.clear()
        if not self.sources:
            self.remove_menu.addAction(self.tr("Nothing added yet")).setEnabled(False)
        for path in self.sources:
            action = self.remove_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.remove(p))

    async def _refresh_sources(self) -> None:
        try:
            self.sources = [source.path for source in await self.knowledge.sources_async()]
        except KnowledgeUnavailable as error:
            report(error, "the knowledge base")

    def remove(self, path: str) -> asyncio.Task[Any]:
        return self.tasks.spawn(self._remove(path), "knowledge remove")

    async def _remove(self, path: str) -> None:
        removed = await self.knowledge.remove_async(path)
        await self._refresh_sources()
        text = self.tr("Removed {path}: %Ln file(s) left your knowledge base.", "", removed or 0)
        self.window.stage_label.setText(text.format(path=path))

    def _show_progress(self, step: IndexProgress) -> None:
        locale = QLocale()
        self.window.stage_label.setText(
            self.tr("Indexing {source}: {done} of {total} files").format(
                source=step.source,
                done=locale.toString(step.done),
                total=locale.toString(step.total),
            )
        )

    def _summary(self, found: IndexReport) -> str:
        files = self.tr("Indexed %Ln file(s)", "", found.indexed)
        passages = self.tr("%Ln passage(s)", "", found.passages)
        text = self.tr("{files} ({passages}).").format(files=files, passages=passages)
        skipped = found.binary + len(found.unreadable)
        if skipped:
            text += " " + self.tr("%Ln skipped (binary or unreadable).", "", skipped)
        return text

    def _on_change(self, found: IndexReport) -> None:
        self.window.stage_label.setText(self._summary(found))

    # ---- the retrieving stage and its citations -------------------------------------

    def _on_retrieved(self, generation: Generation, event: Retrieved) -> None:
        found = event.retrieval
        notice = found.notice()
        if notice:
            text = self.tr("Your notes were not searched in time; answering without them.")
            if found.error:
                text = self.tr("Your notes could not be searched: {error}").format(
                    error=error_text(found.error)
                )
        else:
            ms = QLocale().toString(found.ms, "f", 0)  # the state's own words, as elsewhere
            words = turn_word(TurnState.RETRIEVING)
            text = self.tr("{state}… {ms} ms").format(state=words, ms=ms)
            if found.passages:
                text += " · " + self.tr("%Ln passage(s)", "", len(found.passages))
        self.page.runner.note = text
        self.window.stage_label.setText(text)

    def _on_ended(self, generation: Generation, key: int) -> None:
        found = generation.retrieval
        view = self.window.chat_view
        if found is None or not found.passages or not view.has_message(key):
            return
        message = view.message(key)
        lines, message.citation_targets = citations_for(found.passages, found.ms)
        view.set_footer(key, message.footer, lines)

    def _on_action(self, action: str, key: int) -> None:
        view = self.window.chat_view
        if not action.startswith("cite") or not view.has_message(key):
            return
        targets = view.message(key).citation_targets
        number = int(action.removeprefix("cite") or 0)
        if 1 <= number <= len(targets):
            path, line = targets[number - 1]
            if not open_in_editor(path, line):  # else at its start, by the desktop
                QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    async def aclose(self) -> None:
        await self.tasks.aclose()
        await asyncio.get_running_loop().run_in_executor(None, self.knowledge.close)
