"""What attaching an image did, said where the image is (the tray above the composer and
the question in the chat): "4000×3000, 10.7 MB → sent 1024×768, 250 KB", or "640×480,
80 KB, sent as it is" when it was already small enough. Sizes in decimal units, as the
rest of the window counts them."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.core.images import Attachment
from client.ui.common.locale_text import number


def cost_text(attachment: Attachment) -> str:
    sent = attachment.sent
    original = _size(
        attachment.original_width, attachment.original_height, len(attachment.original)
    )
    if not attachment.downscaled:
        return QCoreApplication.translate("ImageCost", "{original}, sent as it is").format(
            original=original
        )
    return QCoreApplication.translate("ImageCost", "{original} → sent {sent}").format(
        original=original, sent=_size(sent.width, sent.height, len(sent.data))
    )


def _size(width: int, height: int, size_bytes: int) -> str:
    if size_bytes >= 10**6:
        amount = QCoreApplication.translate("ImageCost", "{n} MB").format(
            n=number(size_bytes / 10**6, 1)
        )
    else:
        amount = QCoreApplication.translate("ImageCost", "{n} KB").format(
            n=number(max(1, round(size_bytes / 10**3)))
        )
    return QCoreApplication.translate("ImageCost", "{width}×{height}, {amount}").format(
        width=width, height=height, amount=amount
    )
