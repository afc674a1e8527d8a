"""The colours of text the window draws itself, light and dark, held to a contrast of at
least 4.5:1 (WCAG 2 AA for text) against what they are drawn on; and the same for the
platform palette's text roles, which some styles leave lower (Fusion's placeholder is
black at half opacity, 4.0:1; its selection blue under white text 3.7:1).

Every colour of text belongs here, in client/ui/hud/plots/palette.py (the tiers' words) or in
resources/style*.qss: tests/ui/common/test_contrast.py measures them all, in both schemes.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtGui import QColor, QPalette

LEAST_CONTRAST = 4.5
# A little above the least, so a colour adjusted here still passes after rounding.
TARGET_CONTRAST = 4.6


class ChatColours(NamedTuple):  # (not a dataclass: ~2 ms of imports before the paint)
    secondary: str  # labels, the code header, quotes: at least 4.5:1 on the background
    thinking: str  # a reasoning model's reasoning
    link: str
    question: str  # the box behind the user's question
    code: str  # the box behind a code block, and inline code
    rule: str  # table borders
    table_header: str
    error: str  # a tool card's header when the call failed, was denied or lost


LIGHT = ChatColours(
    secondary="#5b626b",  # 6.2:1 on white
    thinking="#666d75",  # 5.2:1 on white
    link="#2c5d9f",  # 6.5:1 on white
    question="#eaf0f8",
    code="#f2f4f7",
    rule="#c9ced6",
    table_header="#e4e9f0",  # a step darker than the code box: it shows on white
    error="#a4262c",  # 6.6:1 on white
)
DARK = ChatColours(
    secondary="#a9b1bc",  # 7.6:1 on #1e2126
    thinking="#9ba3ad",  # 6.5:1 on #1e2126
    link="#8ab4f0",  # 7.8:1 on #1e2126
    question="#283241",
    code="#2a2e35",
    rule="#4a505a",
    table_header="#333a45",
    error="#f1a7a4",  # 7.9:1 on #1e2126
)


def text_colours(dark: bool) -> ChatColours:
    """The chat's text colours for a light or dark window (client.ui.common.theme.is_dark)."""
    return DARK if dark else LIGHT


def luminance(colour: QColor) -> float:
    """WCAG 2's relative luminance of an opaque sRGB colour."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = colour.redF(), colour.greenF(), colour.blueF()
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast(first: QColor, second: QColor) -> float:
    """WCAG 2's contrast ratio, 1 to 21."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def over(colour: QColor, background: QColor) -> QColor:
    """A translucent colour as it shows over an opaque background."""
    alpha = colour.alphaF()
    mixed = [
        alpha * top + (1 - alpha) * bottom
        for top, bottom in (
            (colour.redF(), background.redF()),
            (colour.greenF(), background.greenF()),
            (colour.blueF(), background.blueF()),
        )
    ]
    return QColor.fromRgbF(*mixed)


def readable(colour: QColor, background: QColor) -> QColor:
    """`colour` over `background`, made darker (on a light background) or lighter (on a
    dark one) in steps until it reads at TARGET_CONTRAST; itself when it already does."""
    shown = over(colour, background)
    if contrast(shown, background) >= LEAST_CONTRAST:
        return shown
    toward_black = luminance(background) > 0.18
    for step in range(1, 21):
        share = step / 20
        target = QColor("black") if toward_black else QColor("white")
        mixed = over(QColor.fromRgbF(target.redF(), target.greenF(), target.blueF(), share), shown)
        if contrast(mixed, background) >= TARGET_CONTRAST:
            return mixed
    return QColor("black") if toward_black else QColor("white")


# (text, background, which of the two to change): the palette's pairs a user reads.
ROLE = QPalette.ColorRole
TEXT_ROLES = (
    (ROLE.WindowText, ROLE.Window, ROLE.WindowText),
    (ROLE.Text, ROLE.Base, ROLE.Text),
    (ROLE.Text, ROLE.AlternateBase, ROLE.Text),
    (ROLE.ButtonText, ROLE.Button, ROLE.ButtonText),
    (ROLE.ToolTipText, ROLE.ToolTipBase, ROLE.ToolTipText),
    (ROLE.PlaceholderText, ROLE.Base, ROLE.PlaceholderText),
    (ROLE.Link, ROLE.Base, ROLE.Link),
    (ROLE.LinkVisited, ROLE.Base, ROLE.LinkVisited),
    # The selection: its colour changes, not the white text on it.
    (ROLE.HighlightedText, ROLE.Highlight, ROLE.Highlight),
)


def readable_palette(palette: QPalette) -> QPalette | None:
    """The palette with each text role readable on its background (active and
    inactive; disabled text is exempt), or None when it already is."""
    fixed, changed = QPalette(palette), False
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        for text, background, change in TEXT_ROLES:
            fore, back = fixed.color(group, text), fixed.color(group, background)
            if contrast(over(fore, back), back) >= LEAST_CONTRAST:
                continue
            if change is text:
                fixed.setColor(group, text, readable(fore, back))
            else:  # darken (or lighten) the background under the text instead
                fixed.setColor(group, background, readable(back, fore))
            changed = True
    return fixed if changed else None
