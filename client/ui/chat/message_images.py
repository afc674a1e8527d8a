"""A sent question's images in the chat: small pictures under its text, each a link of
the view's own scheme that opens the image full size (client/ui/chat/image_viewer.py).

The pictures are the window's own resources (added to the document by name), never
loaded from anywhere: the document refuses every resource it is asked to load.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import (
    QImage,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
    QTextImageFormat,
)

from client.ui.chat.render.chat_view import ChatView

THUMBNAIL_PX = 96


def thumbnail(image: QImage, side: int = THUMBNAIL_PX) -> QImage:
    return image.scaled(
        side, side, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def show_images(
    view: ChatView, key: int, images: list[tuple[int, QImage]], captions: list[str] | None = None
) -> None:
    """Put (token, picture) thumbnails under message `key`; a click on one asks the
    view's action "image" with its token. `captions`: a line under each (plain text:
    what sending it cost, client/ui/chat/image_cost_text.py)."""
    if not images or not view.has_message(key):
        return
    try:
        _content, meta = view.message_frames(key)
    except KeyError:  # an earlier message of a long conversation, not laid out yet
        return
    document = view.document()
    cursor = QTextCursor(document)
    cursor.setPosition(meta.firstPosition() - 1)  # just before the label: its own frame
    frame_format = QTextFrameFormat()
    frame_format.setLeftMargin(8)
    frame = cursor.insertFrame(frame_format)
    cursor = frame.firstCursorPosition()
    for index, (token, picture) in enumerate(images):
        name = f"{view.action_scheme}-image:{token}"
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), picture)
        shown = QTextImageFormat()
        shown.setName(name)
        shown.setWidth(picture.width())
        shown.setHeight(picture.height())
        shown.setAnchor(True)
        shown.setAnchorHref(f"{view.action_scheme}:image/{token}")
        shown.setToolTip(view.tr("Click to view the image full size"))
        cursor.insertImage(shown)
        caption = captions[index] if captions and index < len(captions) else ""
        cursor.insertText(f" {caption}  " if caption else " ")  # plain text, never markup
