"""Where the app's resources/ folder is: the bundle, the wheel, or the source checkout.

No Qt here: the command line (`tachy --install-desktop-entry`) uses it too.
"""

from __future__ import annotations

import sys
from pathlib import Path

APP_ID = "io.github.tachy.Tachy"  # reverse-DNS id: desktop entry, icon, AppStream, Wayland
_PACKAGE = Path(__file__).resolve().parents[2]  # the `client` package


def resources_dir() -> Path:
    """The first of: the PyInstaller bundle's copy (packaging/bundle.py), the wheel's
    client/resources (setup.py maps it), the checkout's top-level resources/."""
    candidates = [_PACKAGE / "resources", _PACKAGE.parent / "resources"]
    bundled = vars(sys).get("_MEIPASS")  # PyInstaller's bundle sets it
    if bundled:
        candidates.insert(0, Path(bundled) / "resources")
    for candidate in candidates:
        if (candidate / f"{APP_ID}.desktop").is_file():
            return candidate
    return candidates[-1]


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def icon_svg() -> Path:
    return resource("icons", "hicolor", "scalable", "apps", f"{APP_ID}.svg")
