"""Images attached to the next message, above the composer: the Attach image button,
a removable thumbnail per image (a click shows it full size), and one sentence when
something offered cannot be sent. `ImageInput` takes pasted (Ctrl+V) and dropped
images from the composer; plain text pastes and drops go on as before."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QEvent,
    QIODevice,
    QMimeData,
    QObject,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QIcon,
    QImage,
    QKeyEvent,
    QKeySequence,
    QPixmap,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from client.core.images import Attachment
from client.services.images.attaching import Offered, looks_like_image
from client.ui.chat.image_cost_text import cost_text
from client.ui.chat.message_images import thumbnail

THUMB_PX = 56
# What a paste or a drop may carry as image bytes, in the order asked for.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


def picture_of(attachment: Attachment, original: bool = False) -> QImage:
    """The image as the window shows it (the original for the full-size view)."""
    return QImage.fromData(attachment.original if original else attachment.sent.data)


class AttachmentTray(QWidget):
    attachRequested = Signal()  # the Attach image button
    removeRequested = Signal(int)  # an image's index
    viewRequested = Signal(int)  # an image's index: show it full size
    offerTaken = Signal()  # "Use {model}": the model that can see, offered for an image

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentTray")
        self.attach_button = QToolButton(self)
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText(self.tr("Attach image…"))
        self.attach_button.setAccessibleName(self.tr("Attach image"))
        self.attach_button.clicked.connect(self.attachRequested)
        self.problem = QLabel(self)
        self.problem.setObjectName("attachProblem")
        self.problem.setWordWrap(True)
        self.problem.setAccessibleName(self.tr("Image problem"))
        self.offer_button = QToolButton(self)  # a model that can see, when one is known
        self.offer_button.setObjectName("useSeeingModel")
        self.offer_button.setAccessibleName(self.tr("Use a model that can see"))
        self.offer_button.hide()
        self.offer_button.clicked.connect(self.offerTaken)
        self._thumbs = QHBoxLayout()
        self._thumbs.setSpacing(6)
        self.thumbnails: list[QWidget] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.attach_button)
        row.addLayout(self._thumbs)
        row.addWidget(self.problem, 1)
        row.addWidget(self.offer_button)
        self.set_vision("")

    def show_images(self, attachments: list[Attachment]) -> None:
        """The thumbnails of the images waiting, in order."""
        for widget in self.thumbnails:
            self._thumbs.removeWidget(widget)
            widget.deleteLater()
        self.thumbnails = [self._thumbnail(i, a) for i, a in enumerate(attachments)]
        for widget in self.thumbnails:
            self._thumbs.addWidget(widget)

    def say(self, sentence: str) -> None:
        self.problem.setText(sentence)

    def offer_model(self, model: str) -> None:
        """Offer to switch to `model`, which can see ("": no offer)."""
        self.offer_button.setText(self.tr("Use {model}, which can see").format(model=model))
        self.offer_button.setVisible(bool(model))

    def set_vision(self, why_not: str) -> None:
        """The button is off, saying why, for a model that cannot see ("": on)."""
        self.attach_button.setEnabled(not why_not)
        self.attach_button.setToolTip(
            why_not
            or self.tr("Attach an image for the model to see (or paste one, or drop it here)")
        )

    def _thumbnail(self, index: int, attachment: Attachment) -> QWidget:
        box = QWidget(self)
        box.setObjectName("attachedImage")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        view = QToolButton(box)
        view.setObjectName("attachedImageView")
        view.setIcon(QIcon(QPixmap.fromImage(thumbnail(picture_of(attachment), THUMB_PX))))
        view.setIconSize(QSize(THUMB_PX, THUMB_PX))
        name = attachment.name or self.tr("pasted image")
        view.setToolTip(self.tr("{name}: click to view it full size").format(name=name))
        view.setAccessibleName(self.tr("Image {name}").format(name=name))
        view.clicked.connect(lambda: self.viewRequested.emit(index))
        remove = QToolButton(box)
        remove.setObjectName("removeImage")
        remove.setText("×")
        remove.setAccessibleName(self.tr("Remove image {name}").format(name=name))
        remove.setToolTip(self.tr("Remove this image"))
        remove.clicked.connect(lambda: self.removeRequested.emit(index))
        cost = QLabel(cost_text(attachment), box)  # what preparing it did, where it is
        cost.setObjectName("imageCost")
        cost.setTextFormat(Qt.TextFormat.PlainText)
        cost.setWordWrap(True)
        cost.setMaximumWidth(THUMB_PX * 3)
        layout.addWidget(view)
        layout.addWidget(cost)
        layout.addWidget(remove)
        return box


class ImageInput(QObject):
    """Pasted and dropped images for the composer (installed on it and its viewport)."""

    offered = Signal(list)  # [Offered]

    def __init__(self, composer: QPlainTextEdit) -> None:
        super().__init__(composer)
        self.pasted_name = ""  # the window's name for a pasted image (translated)
        composer.installEventFilter(self)
        composer.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.matches(QKeySequence.StandardKey.Paste):
                return self._take(QGuiApplication.clipboard().mimeData())
        elif kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if isinstance(event, QDragMoveEvent) and offered_images(event.mimeData(), ""):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            if self._take(event.mimeData()):
                event.acceptProposedAction()
                return True
        return False

    def _take(self, mime: QMimeData | None) -> bool:
        offers = offered_images(mime, self.pasted_name)
        if offers:
            self.offered.emit(offers)
        return bool(offers)


def offered_images(mime: QMimeData | None, pasted_name: str) -> list[Offered]:
    """The images a paste or a drop carries: image files, else image bytes."""
    if mime is None:
        return []
    files = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    images = [Offered(path=path, name=path.name) for path in files if looks_like_image(path)]
    if images:
        return images
    for kind in IMAGE_TYPES:
        if mime.hasFormat(kind):
            return [Offered(data=bytes(mime.data(kind).data()), name=pasted_name)]
    if mime.hasImage():  # a bitmap only (some screenshot tools): encoded here, once
        return [Offered(data=_png(QImage(mime.imageData())), name=pasted_name)]
    return []


def _png(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, b"PNG")
    return bytes(data.data())
