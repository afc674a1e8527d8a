"""The Linux desktop integration: the desktop entry, the AppStream file and the hicolor
icons in resources/ pass the freedesktop validators, share one application id with the
window, and `tachy --install-desktop-entry` puts them in the user's data dir."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from configparser import ConfigParser
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from client.ui.common.resources import APP_ID, icon_svg, resources_dir
from client.ui.shell.app import app_icon, identify_app

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
DESKTOP = RESOURCES / f"{APP_ID}.desktop"
METAINFO = RESOURCES / f"{APP_ID}.metainfo.xml"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
sys.path.insert(0, str(ROOT / "packaging" / "linux"))
import render_icons  # noqa: E402  (packaging/ is not a package)


def _tool(name: str) -> str:
    path = shutil.which(name)
    # .ci/run installs them (desktop-file-utils, appstream): missing is a failure.
    assert path, f"{name} is not installed (apt-get install desktop-file-utils appstream)"
    return path


def _entry(path: Path) -> dict[str, str]:
    parser = ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_the_desktop_entry_is_valid() -> None:
    result = subprocess.run([_tool("desktop-file-validate"), str(DESKTOP)], capture_output=True)
    assert result.returncode == 0 and result.stdout == b"", result.stdout.decode()


def test_the_appstream_file_is_valid_with_no_warnings() -> None:
    command = [_tool("appstreamcli"), "validate", "--no-net", "--explain", str(METAINFO)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "W:" not in result.stdout and "E:" not in result.stdout, result.stdout


def test_one_application_id_everywhere(qapp: QApplication) -> None:
    component = ET.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == DESKTOP.name
    assert component.findtext("icon") == APP_ID
    assert _entry(DESKTOP)["Icon"] == APP_ID
    identify_app(qapp)
    assert qapp.desktopFileName() == APP_ID  # Wayland app id / taskbar grouping
    qapp.setWindowIcon(app_icon())  # as run_app does after the first paint
    assert not qapp.windowIcon().isNull()
    assert qapp.windowIcon().availableSizes()  # the PNGs, not only a theme lookup


def test_the_appstream_file_has_what_software_centres_show() -> None:
    component = ET.parse(METAINFO).getroot()
    assert len(component.findall("description/p")) >= 2
    assert component.find("content_rating[@type='oars-1.1']") is not None
    release = component.find("releases/release")
    assert release is not None and release.get("version") == _version()
    for image in component.findall("screenshots/screenshot/image"):
        assert image.text is not None
        name = image.text.rsplit("/resources/", 1)[1]
        assert (RESOURCES / name).is_file(), f"screenshot {name} is not in resources/"


def _version() -> str:
    from client import __version__

    return __version__


@pytest.mark.parametrize("size", SIZES)
def test_each_png_icon_is_the_svg_rendered_at_its_size(qapp: QApplication, size: int) -> None:
    png = QImage(str(render_icons.png_path(size, RESOURCES / "icons" / "hicolor")))
    assert (png.width(), png.height()) == (size, size)
    fresh = render_icons.render(icon_svg(), size).convertToFormat(png.format())
    # Qt's rasteriser may round a few edge pixels differently on another machine (seen:
    # up to 11 pixels off by 1 of 255); an edited SVG changes far more, by far more.
    assert _largest_difference(png, fresh) <= 2, (
        "re-run packaging/linux/render_icons.py after editing the SVG"
    )


def _largest_difference(a: QImage, b: QImage) -> int:
    """The largest difference of one channel of one pixel, 0-255."""
    return max(
        abs(((a.pixel(x, y) >> shift) & 255) - ((b.pixel(x, y) >> shift) & 255))
        for y in range(a.height())
        for x in range(a.width())
        for shift in (0, 8, 16, 24)
    )


def test_install_and_uninstall_into_the_data_dir(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "client", "--install-desktop-entry"]
    installed = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    entry = tmp_path / "applications" / DESKTOP.name
    assert str(entry) in installed.stdout
    assert (tmp_path / "metainfo" / METAINFO.name).is_file()
    for size in SIZES:
        assert (tmp_path / f"icons/hicolor/{size}x{size}/apps/{APP_ID}.png").is_file()
    assert (tmp_path / f"icons/hicolor/scalable/apps/{APP_ID}.svg").is_file()
    assert subprocess.run([_tool("desktop-file-validate"), str(entry)]).returncode == 0
    launcher = _entry(entry)["Exec"].split()[0]
    assert os.access(launcher, os.X_OK), launcher  # an absolute path a menu can run
    check = [*_entry(entry)["Exec"].split(), "--version"]
    assert subprocess.run(check, env=env, capture_output=True, text=True).stdout.startswith(
        "tachy "
    )
    command[-1] = "--uninstall-desktop-entry"
    subprocess.run(command, env=env, capture_output=True, check=True)
    left = [p for p in tmp_path.rglob("*") if p.is_file() and APP_ID in p.name]
    assert left == []


def test_the_bundle_adds_itself_to_the_menu_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from client.cli import desktop_entry

    entry = tmp_path / "applications" / DESKTOP.name
    assert desktop_entry.install_on_first_run(tmp_path) == []  # not frozen: pip users ask
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert entry in desktop_entry.install_on_first_run(tmp_path)
    assert desktop_entry.install_on_first_run(tmp_path) == []  # already there
    desktop_entry.uninstall(tmp_path)
    assert not entry.exists()
    assert desktop_entry.install_on_first_run(tmp_path) == []  # removed on purpose: stays so
    desktop_entry.install(tmp_path)
    assert entry.exists()


def test_resources_are_found_in_the_checkout() -> None:
    assert resources_dir() == RESOURCES
