"""Images in the window: paste (Ctrl+V), drop or attach them above the composer, see
them under the question sent (a click shows one full size), and the Attach button off,
saying why, for a model that cannot see. Adapts client/services/images: preparing runs
off the GUI thread, which model can see is asked of its server once."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QBoxLayout, QFileDialog, QWidget

from client.core.images import Attachment
from client.services.images.attaching import Offered, WaitingImages
from client.services.images.preparation import Preparation
from client.services.images.stored import stored_attachments, stored_images
from client.services.planning.planner import Route
from client.services.servers.servers import ServerChoice
from client.ui.chat.attachments import AttachmentTray, ImageInput, picture_of
from client.ui.chat.image_cost_text import cost_text
from client.ui.chat.image_viewer import ImageViewer
from client.ui.chat.message_images import show_images, thumbnail
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text

if TYPE_CHECKING:
    from client.services.chat.generation import Generation
    from client.services.tachy import Tachy
    from client.ui.chat.chat_page import ChatPage

FOLLOW_MS = 500  # how often the model in use is compared with the one last asked about


class ModelPicker(Protocol):
    """The server bar's picker, as offering a model that can see uses it (the shell
    hands it over: the chat area does not know the servers' area)."""

    modelChosen: SignalInstance
    modelOnServerChosen: SignalInstance

    @property
    def server_in_use(self) -> ServerChoice | None: ...
    def model_groups(self) -> list[ServerChoice]: ...
    def models_of(self, choice: ServerChoice) -> list[str]: ...
    def set_models(
        self, models: Sequence[str], current: str | None, server: ServerChoice | None = None
    ) -> None: ...


class AttachmentsController(QObject):
    waitingChanged = Signal()  # images attached or removed (the predicted wait follows)

    def __init__(self, page: ChatPage, tachy: Tachy) -> None:
        super().__init__(page)
        self.page, self.tachy, self.window = page, tachy, page.window
        self.waiting = WaitingImages()
        self.tasks = KeptTasks()
        self.tray = AttachmentTray(self.window)
        layout = self.window.centre_layout
        layout.insertWidget(_composer_row(layout, self.window.composer), self.tray)
        self.input = ImageInput(self.window.composer)
        self.input.pasted_name = self.tr("pasted image")
        self.viewers: list[ImageViewer] = []
        self._sent: dict[int, Attachment] = {}  # a picture in the chat, by its token
        self._stored: dict[int, tuple[int, int]] = {}  # a stored one: (message id, position)
        self._tokens = itertools.count(1)
        self._route: Route | None = None
        self._refused: list[Offered] = []  # offered to a model that cannot see
        self.picker: ModelPicker | None = None  # the server bar's (set by the shell)
        self._offered: tuple[ServerChoice, str] | None = None  # a model that can see
        self._connect()
        if tachy.warming is not None:  # the waiting images count in the predicted wait
            tachy.warming.draft_images = lambda: [a.sent for a in self.waiting.images]
        self._follow = QTimer(self)
        self._follow.setInterval(FOLLOW_MS)
        self._follow.timeout.connect(self.follow_route)
        self._follow.start()

    def _connect(self) -> None:
        self.input.offered.connect(self.offer)
        self.tray.attachRequested.connect(self._choose_files)
        self.tray.removeRequested.connect(self._remove)
        self.tray.offerTaken.connect(self._take_offer)
        self.tray.viewRequested.connect(lambda index: self.view(self.waiting.images[index]))
        self.page.take_images = self.take
        self.page.imagesSent.connect(self._on_sent)
        self.page.sessionChanged.connect(lambda _session: self.follow_route())
        self.page.conversationShown.connect(self._on_conversation_shown)
        self.page.answerEnded.connect(self._on_answer_ended)
        self.window.chat_view.actionRequested.connect(self._on_action)

    # --- which model can see ---------------------------------------------------------
    def follow_route(self) -> None:
        """The model in use changed: say at once what is known of its eyes, ask the rest."""
        session = self.page.session
        route = session.route if session is not None else None
        if route == self._route:
            return
        self._route = route
        self.tray.set_vision(self.why_not())
        if route is not None:
            self.tasks.spawn(self._ask(route), "asking whether the model can see")

    async def _ask(self, route: Route) -> None:
        await self.tachy.vision.support(route)
        if route == self._route:
            self.tray.set_vision(self.why_not())
            refused, self._refused = self._refused, []
            if refused and not self.why_not():  # the model offered can see: attach them
                self.tray.say("")
                self.offer(refused)

    def _on_answer_ended(self, generation: Generation, _key: int) -> None:
        """A server that did not say refused the image: the button says so from now on."""
        if self.tachy.vision.learn(generation.route, generation.error):
            self.tray.set_vision(self.why_not())

    def why_not(self) -> str:
        """Why images cannot go to the model in use, in the window's language; "": they can."""
        if self._route is None:
            return ""
        return error_text(self.tachy.vision.why_not(self._route))

    # --- attaching -------------------------------------------------------------------
    def offer(self, offered: list[Offered]) -> None:
        why = self.why_not()
        self.tray.offer_model("")
        if why:
            self.tray.say(why)  # nothing is lost: the file or the clipboard still has it
            self._refused = offered
            self.tasks.spawn(self._offer_seeing(), "finding a model that can see")
            return
        self.tasks.spawn(self._prepare(offered), "preparing images")

    async def _offer_seeing(self) -> None:
        """A text model was offered an image: offer the first model in the picker whose
        server says it can see (the same server's first, then the others')."""
        bar = self.picker
        if bar is None:
            return
        in_use = bar.server_in_use
        candidates: list[tuple[ServerChoice, Route]] = []
        for choice in sorted(bar.model_groups(), key=lambda c: c != in_use):
            try:
                backend = await self.tachy.backend(choice)
            except Exception:  # not reachable now: not offered
                continue
            candidates += [(choice, Route(backend, m, choice.name)) for m in bar.models_of(choice)]
        found = await self.tachy.vision.first_that_sees([route for _, route in candidates])
        if found is not None and self._refused:
            self._offered = next((c, r.model) for c, r in candidates if r is found)
            self.tray.offer_model(found.model)

    def _take_offer(self) -> None:
        """Switch to the model offered; the refused images are offered to it once it is
        the one in use (follow_route)."""
        if self._offered is None:
            return
        choice, model = self._offered
        bar = self.picker
        if bar is None:
            return
        self.tray.offer_model("")
        if choice == bar.server_in_use:
            bar.set_models(bar.models_of(choice), model, choice)
            bar.modelChosen.emit(model)
        else:
            bar.modelOnServerChosen.emit(choice, model)

    async def _prepare(self, offered: list[Offered]) -> None:
        route = self._route
        how = Preparation()
        if route is not None:
            warming = self.tachy.warming
            learned = warming.learned_image_side(route.backend, route.model) if warming else None
            how = self.tachy.vision.preparation(route, learned)
        problems = await self.waiting.offer(offered, how)
        self._show_waiting()
        self.tray.say(" ".join(error_text(problem) for problem in problems))

    def _choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self.window,
            self.tr("Attach images"),
            "",
            self.tr("Images (*.png *.jpg *.jpeg *.webp *.gif)"),
        )
        self.offer([Offered(path=Path(p), name=Path(p).name) for p in paths])

    def _remove(self, index: int) -> None:
        self.waiting.remove(index)
        self._show_waiting()

    def _show_waiting(self) -> None:
        self.tray.show_images(self.waiting.images)
        self.waitingChanged.emit()

    def take(self) -> list[Attachment] | None:
        """The images for the question being sent (the tray emptied); None when the model
        cannot see them: the tray says why and keeps them."""
        if not self.waiting.images:
            return []
        why = self.why_not()
        if why:
            self.tray.say(why)
            return None
        taken = self.waiting.take()
        self._show_waiting()
        self.tray.say("")
        return taken

    # --- in the chat -----------------------------------------------------------------
    def _on_sent(self, key: int, images: list[Attachment]) -> None:
        pictures = []
        for attachment in images:
            token = next(self._tokens)
            self._sent[token] = attachment
            pictures.append((token, thumbnail(picture_of(attachment))))
        captions = [cost_text(a) for a in images]  # what was sent, where it shows
        show_images(self.window.chat_view, key, pictures, captions)

    def _on_conversation_shown(self) -> None:
        view, history = self.window.chat_view, self.tachy.stores.history
        questions = [k for k in view.keys() if k > 0 and view.message(k).role == "user"]
        if questions and history is not None:
            self.tasks.spawn(self._show_stored(questions), "showing a conversation's images")

    async def _show_stored(self, questions: list[int]) -> None:
        history = self.tachy.stores.history
        assert history is not None
        found = await stored_images(history, questions)
        for key, parts in found.items():
            pictures = []
            for position, part in enumerate(parts):
                token = next(self._tokens)
                self._stored[token] = (key, position)
                pictures.append((token, thumbnail(QImage.fromData(part.data))))
            show_images(self.window.chat_view, key, pictures)

    def _on_action(self, action: str, token: int) -> None:
        if action != "image":
            return
        if token in self._sent:
            self.view(self._sent[token])
        elif token in self._stored:
            self.tasks.spawn(self._view_stored(*self._stored[token]), "opening an image")

    async def _view_stored(self, message_id: int, position: int) -> None:
        history = self.tachy.stores.history
        assert history is not None
        attachments = await stored_attachments(history, message_id)
        if position < len(attachments):
            self.view(attachments[position])

    def view(self, attachment: Attachment) -> ImageViewer:
        """The image full size (the original, as attached), in a window of its own."""
        name = attachment.name or self.tr("pasted image")
        viewer = ImageViewer(picture_of(attachment, original=True), name, self.window)
        viewer.finished.connect(lambda _code: self.viewers.remove(viewer))
        self.viewers.append(viewer)
        viewer.show()
        return viewer

    async def aclose(self) -> None:
        self._follow.stop()
        await self.tasks.aclose()


def _composer_row(layout: QBoxLayout, composer: QWidget) -> int:
    """The index of the layout row holding the composer (the tray goes right above it)."""
    for index in range(layout.count()):
        item = layout.itemAt(index)
        row = item.layout() if item is not None else None
        if row is not None and row.indexOf(composer) >= 0:
            return index
    return layout.count()
