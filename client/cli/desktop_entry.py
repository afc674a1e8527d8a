"""`tachy --install-desktop-entry` / `--uninstall-desktop-entry`: the menu entry, its
icons and the AppStream file in the user's data dir, for people who installed with pip.

Files go under $XDG_DATA_HOME (default ~/.local/share) as the XDG specs say:
applications/<id>.desktop, icons/hicolor/<size>/apps/<id>.png|svg, metainfo/<id>.metainfo.xml.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from client.backends.reasons import os_words
from client.ui.common.resources import APP_ID, resources_dir


def data_home() -> Path:
    configured = os.environ.get("XDG_DATA_HOME")
    return Path(configured) if configured else Path.home() / ".local" / "share"


def launcher_command() -> str:
    """What the menu runs: this bundle's binary, else the `tachy` script on PATH, else
    this Python with -m client (a menu does not see a virtualenv's PATH)."""
    if getattr(sys, "frozen", False):
        return shlex.quote(sys.executable)
    script = shutil.which("tachy")
    if script:
        return shlex.quote(str(Path(script).resolve()))
    return f"{shlex.quote(sys.executable)} -m client"


def planned_files(root: Path) -> dict[Path, Path]:
    """Source in resources/ -> target under the data dir."""
    source = resources_dir()
    files = {
        source / f"{APP_ID}.desktop": root / "applications" / f"{APP_ID}.desktop",
        source / f"{APP_ID}.metainfo.xml": root / "metainfo" / f"{APP_ID}.metainfo.xml",
    }
    icons = source / "icons" / "hicolor"
    for icon in sorted(icons.glob(f"*/apps/{APP_ID}.*")):
        files[icon] = root / "icons" / "hicolor" / icon.relative_to(icons)
    return files


def declined_marker(root: Path) -> Path:
    """Left by an uninstall, so a bundle's first-run install does not bring it back."""
    return root / "tachy" / "no-desktop-entry"


def install_on_first_run(root: Path | None = None) -> list[Path]:
    """The bundle puts itself in the menu the first time it runs (a pip install leaves
    that to `tachy --install-desktop-entry`); never again after an uninstall."""
    root = root or data_home()
    if not getattr(sys, "frozen", False) or declined_marker(root).exists():
        return []
    if (root / "applications" / f"{APP_ID}.desktop").exists():
        return []
    try:
        return install(root)
    except OSError:  # a read-only home: the app runs all the same, without a menu entry
        return []


def install(root: Path | None = None) -> list[Path]:
    root = root or data_home()
    declined_marker(root).unlink(missing_ok=True)
    written = []
    for source, target in planned_files(root).items():
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".desktop":
            target.write_text(_with_exec(source.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copyfile(source, target)
        written.append(target)
    _refresh_caches(root)
    return written


def uninstall(root: Path | None = None) -> list[Path]:
    root = root or data_home()
    removed = []
    for target in planned_files(root).values():
        if target.exists():
            target.unlink()
            removed.append(target)
    declined_marker(root).parent.mkdir(parents=True, exist_ok=True)
    declined_marker(root).touch()
    _refresh_caches(root)
    return removed


def _with_exec(entry: str) -> str:
    command = launcher_command()
    lines = [f"Exec={command}" if line.startswith("Exec=") else line for line in entry.splitlines()]
    return "\n".join(lines) + "\n"


def _refresh_caches(root: Path) -> None:
    """Menus that read the desktop database see the change at once; others rescan."""
    applications = root / "applications"
    if shutil.which("update-desktop-database") and applications.is_dir():
        command = ["update-desktop-database", "-q", str(applications)]
        subprocess.run(command, check=False, capture_output=True)


def run(install_it: bool) -> int:
    try:
        paths = install() if install_it else uninstall()
    except OSError as error:
        print(f"tachy: could not write the desktop entry: {os_words(error)}.", file=sys.stderr)
        return 1
    verb = "installed" if install_it else "removed"
    for path in paths:
        print(f"{verb} {path}")
    if not paths:
        print("nothing to remove: no Tachy desktop entry in", data_home())
    return 0
