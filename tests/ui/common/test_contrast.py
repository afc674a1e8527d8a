"""Every text the window shows reads at 4.5:1 or more (WCAG 2 AA) in the light and the
dark scheme, and the keyboard focus ring at 3:1 against the window. The colours are
collected from where the app takes them: the palette it installs (client.ui.common.theme
with its readability pass), the stylesheets' `color:` rules, the chat's text colours,
the tiers' words and the code colours. A new colour in any of them is measured too, and
a colour written anywhere else in client/ui fails the last test: it belongs in one of
these places.

The ratio is computed here from WCAG's formula, not with client.ui.common.colours,
so a mistake there cannot hide itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from client.core.tiers import DEFAULT_THRESHOLDS, Tier
from client.ui.chat.render.markdown import code_highlight
from client.ui.common import colours
from client.ui.common.theme import SchemeFollower, dark_palette, stylesheet
from client.ui.hud import LatencyHud
from client.ui.hud.plots.palette import TIER_TEXT_COLORS

ROOT = Path(__file__).resolve().parents[3]
TEXT = 4.5
NON_TEXT = 3.0  # a focus indicator (WCAG 1.4.11)
SCHEMES = [False, True]  # dark?
ROLE = QPalette.ColorRole
# The palette's text roles and what each is drawn on.
READ_ON = [
    (ROLE.WindowText, ROLE.Window),
    (ROLE.Text, ROLE.Base),
    (ROLE.Text, ROLE.AlternateBase),
    (ROLE.ButtonText, ROLE.Button),
    (ROLE.ToolTipText, ROLE.ToolTipBase),
    (ROLE.PlaceholderText, ROLE.Base),
    (ROLE.Link, ROLE.Base),
    (ROLE.HighlightedText, ROLE.Highlight),
]


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4


def _luminance(colour: QColor) -> float:
    red, green, blue = (_linear(c) for c in (colour.redF(), colour.greenF(), colour.blueF()))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _over(colour: QColor, background: QColor) -> QColor:
    a = colour.alphaF()
    return QColor.fromRgbF(
        *(
            a * top + (1 - a) * bottom
            for top, bottom in zip(colour.getRgbF()[:3], background.getRgbF()[:3], strict=True)
        )
    )


def ratio(text: QColor | str, background: QColor | str) -> float:
    back = QColor(background)
    fore = _over(QColor(text), back)
    light, dark = sorted((_luminance(fore), _luminance(back)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_ratio_is_wcag_s() -> None:
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#7a7a7a", "#ffffff") == pytest.approx(4.29, abs=0.01)  # the figures
    assert ratio("#8a8a8a", "#ffffff") == pytest.approx(3.45, abs=0.01)
    assert ratio("#3b6fb6", "#1e2126") == pytest.approx(3.18, abs=0.01)


def _install(qapp: QApplication, dark: bool) -> QPalette:
    """The scheme as the app installs it (SchemeFollower.apply): palette, stylesheet."""
    QApplication.setPalette(dark_palette() if dark else qapp.style().standardPalette())
    follower = SchemeFollower(qapp)
    follower.dark = dark
    follower.apply()
    return QPalette(QGuiApplication.palette())


@pytest.fixture
def scheme_palette(qapp: QApplication) -> Iterator[dict[bool, QPalette]]:
    """The palette the app installs in each scheme."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield {dark: _install(qapp, dark) for dark in SCHEMES}
    QApplication.setPalette(palette)
    qapp.setStyleSheet(sheet)


def _failures(pairs: Iterator[tuple[str, QColor | str, QColor | str]], least: float) -> list[str]:
    return [
        f"{where}: {QColor(fore).name()} on {QColor(back).name()} is "
        f"{ratio(fore, back):.2f}:1 (least {least}:1)"
        for where, fore, back in pairs
        if ratio(fore, back) < least
    ]


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_palette_s_text_reads(dark: bool, scheme_palette: dict[bool, QPalette]) -> None:
    palette = scheme_palette[dark]
    pairs = (
        (f"{group.name} {text.name} on {back.name}", palette.color(group, text),
         palette.color(group, back))
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive)
        for text, back in READ_ON
    )  # fmt: skip
    assert _failures(pairs, TEXT) == []


def _rules(sheet: str) -> dict[str, dict[str, str]]:
    """selector -> its declarations, later rules over earlier ones (as Qt applies them)."""
    sheet = re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)
    merged: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", sheet):
        declarations = dict(
            (name.strip(), value.strip())
            for name, _, value in (d.partition(":") for d in body.split(";") if ":" in d)
        )
        for selector in selectors.split(","):
            merged.setdefault(selector.strip(), {}).update(declarations)
    return merged


COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgba?\([^)]*\)")


def _colour(value: str, palette: QPalette) -> QColor | None:
    """A declaration's colour: #rrggbb, rgb(...) or palette(role); None for none."""
    role = re.search(r"palette\(([\w-]+)\)", value)
    if role:
        name = "".join(part.capitalize() for part in role.group(1).split("-"))
        return palette.color(getattr(ROLE, name))
    found = COLOUR.search(value)
    return QColor(found.group(0)) if found else None


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_stylesheet_s_text_reads(dark: bool, scheme_palette: dict[bool, QPalette]) -> None:
    """Each `color:` on its rule's own background, or else on the window's and on a
    field's (Window and Base): a label may sit on either."""
    palette = scheme_palette[dark]
    rules = _rules(stylesheet(dark))
    coloured = {s: r for s, r in rules.items() if "color" in r}
    assert coloured, "the stylesheets give no text colour: the parser missed them"
    pairs = []
    for selector, rule in coloured.items():
        fore = _colour(rule["color"], palette)
        own = _colour(rule.get("background", rule.get("background-color", "")), palette)
        grounds = [own] if own else [palette.color(ROLE.Window), palette.color(ROLE.Base)]
        pairs += [(selector, fore, back) for back in grounds if fore is not None]
    assert _failures(iter(pairs), TEXT) == []


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_focus_ring_shows(dark: bool, scheme_palette: dict[bool, QPalette]) -> None:
    palette = scheme_palette[dark]
    rules = _rules(stylesheet(dark))
    for kind in ("QPushButton", "QToolButton", "QComboBox", "QLineEdit", "QCheckBox",
                 "QAbstractSpinBox", "QAbstractScrollArea", "QTabBar"):  # fmt: skip
        border = rules.get(f"{kind}:focus", {}).get("border", "")
        ring = _colour(border, palette)
        assert ring is not None and "2px" in border, f"{kind} has no focus ring"
        for back in (palette.color(ROLE.Window), palette.color(ROLE.Base)):
            assert ratio(ring, back) >= NON_TEXT, (kind, ring.name(), back.name())


def _chat_backgrounds(dark: bool) -> list[QColor]:
    """The chat's background (the stylesheet's #chatView) and the tints drawn over it:
    a question's box and a code block's box."""
    chat = _colour(_rules(stylesheet(dark))["#chatView"]["background"], QPalette())
    assert chat is not None
    chosen = colours.text_colours(dark)
    return [chat, *(_over(QColor(tint), chat) for tint in (chosen.question, chosen.code))]


TEXT_FIELDS = ("secondary", "thinking", "link", "error")  # the rest are boxes' and rules' colours


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_chat_s_own_colours_read(dark: bool) -> None:
    chosen = colours.text_colours(dark)
    pairs = (
        (f"chat {name} on {back.name()}", value, back)
        for name, value in chosen._asdict().items()
        if name in TEXT_FIELDS
        for back in _chat_backgrounds(dark)
    )
    assert _failures(pairs, TEXT) == []


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_tier_words_read(dark: bool, scheme_palette: dict[bool, QPalette]) -> None:
    palette = scheme_palette[dark]
    assert set(TIER_TEXT_COLORS[dark]) == set(Tier)
    pairs = (
        (f"tier {tier.value}", colour, palette.color(back))
        for tier, colour in TIER_TEXT_COLORS[dark].items()
        for back in (ROLE.Window, ROLE.Base)
    )
    assert _failures(pairs, TEXT) == []


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_tier_words_read_where_they_are_painted(
    dark: bool, qapp: QApplication, qtbot: Any, scheme_palette: dict[bool, QPalette]
) -> None:
    """On the Tier tab as the style paints it (Fusion's tab pane is lighter than the
    window in the dark: #45484c)."""
    _install(qapp, dark)
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.tabs.setCurrentWidget(hud.tier)
    hud.show()
    qtbot.waitExposed(hud)
    found = []
    for tier, ttft in zip(Tier, (50.0, 200.0, 500.0, 2000.0), strict=True):
        hud.tier.show_reply(ttft, DEFAULT_THRESHOLDS)
        assert hud.tier.shown_tier() is tier
        label = hud.tier.tier_label
        corner = label.mapTo(hud, label.rect().topLeft())  # the pane the label sits on
        background = hud.grab().toImage().pixelColor(corner.x() + 1, corner.y() + 1)
        text = QColor(TIER_TEXT_COLORS[dark][tier])
        assert text.name() in label.styleSheet()
        found.append(("tier " + tier.value, text, background))
    assert _failures(iter(found), TEXT) == []


@pytest.mark.parametrize("dark", SCHEMES, ids=["light", "dark"])
def test_the_code_colours_read(dark: bool) -> None:
    from pygments.styles import get_style_by_name
    from pygments.token import Whitespace

    name = code_highlight.DARK_STYLE if dark else code_highlight.LIGHT_STYLE
    style = get_style_by_name(name)
    grounds = [QColor(style.background_color), _chat_backgrounds(dark)[0]]
    pairs = []
    for token, _ in style:
        fmt = code_highlight._token_format(name, token)
        if fmt is None or token in Whitespace or not fmt.hasProperty(fmt.Property.ForegroundBrush):
            continue
        pairs += [(f"{name} {token}", fmt.foreground().color(), back) for back in grounds]
    assert len(pairs) > 20
    assert _failures(iter(pairs), TEXT) == []


# Where client/ui may write a colour: each place is measured above (or draws no text).
COLOUR_PLACES = {
    "client/ui/common/colours.py": "the chat's text colours",
    "client/ui/common/theme.py": "the dark palette",
    "client/ui/hud/plots/palette.py": "plot marks; tiers' words measured above",
    "client/ui/hud/plots/row_labels.py": "a start value, replaced by the palette's text colour",
    "client/ui/demo/bench_report.py": "a report image: dark ink on white",
}
WRITTEN_COLOUR = re.compile(r"[\"']#[0-9a-fA-F]{3,8}[\"']|rgba?\(|QColor\(\s*\d")


def test_colours_are_written_only_where_they_are_measured() -> None:
    found = []
    for path in sorted((ROOT / "client" / "ui").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where not in COLOUR_PLACES and WRITTEN_COLOUR.search(path.read_text("utf-8")):
            found.append(where)
    assert found == [], "move these colours to client/ui/common/colours.py (or say why not)"
