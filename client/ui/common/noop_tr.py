"""QT_TRANSLATE_NOOP typed as str -> str (PySide6's stub says it returns object).

It marks a string for pyside6-lupdate where it is defined (a module-level table); the
string is translated where it is shown, with QCoreApplication.translate or self.tr.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:

    def QT_TRANSLATE_NOOP(context: str, text: str) -> str: ...

else:
    from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["QT_TRANSLATE_NOOP"]
