"""Keeps the window's translations in step with the code.

    python packaging/translations.py update    # pyside6-lupdate -> resources/translations/*.ts
    python packaging/translations.py compile   # pyside6-lrelease *.ts -> *.qm (committed, shipped)

Translate new messages in the .ts with Qt Linguist (pyside6-linguist) or any editor, then
compile. tests/ui/shell/test_translations.py fails while a message of the window has no
finished translation or a .qm is older than its .ts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyqtgraph

ROOT = Path(__file__).resolve().parents[1]
TRANSLATIONS = ROOT / "resources" / "translations"
LANGUAGES = ("zh_CN",)
# English is the source language; its file holds only the plural forms ("%n stall(s)"
# -> "1 stall", "2 stalls"), which a source text alone cannot give.
PLURALS_ONLY = "en"
_PYQTGRAPH = Path(pyqtgraph.__file__).parent
# catalogue -> the files its messages come from. "pyqtgraph": the menus the HUD's plots
# open on right-click (its Export..., the view box and plot menus).
CATALOGUES = {
    "tachy": lambda: sorted((ROOT / "client" / "ui").rglob("*.py")),
    "pyqtgraph": lambda: [
        _PYQTGRAPH / "GraphicsScene" / "GraphicsScene.py",
        _PYQTGRAPH / "graphicsItems" / "ViewBox" / "ViewBoxMenu.py",
        _PYQTGRAPH / "graphicsItems" / "PlotItem" / "PlotItem.py",
    ],
}


def ts_file(language: str, folder: Path = TRANSLATIONS, catalogue: str = "tachy") -> Path:
    return folder / f"{catalogue}_{language}.ts"


def update(ts: Path, catalogue: str = "tachy") -> None:
    """Add the code's new messages to `ts`, drop the ones the code no longer has."""
    files = [str(path) for path in CATALOGUES[catalogue]()]
    language = ts.stem.removeprefix(f"{catalogue}_")
    options = ["-no-obsolete", "-locations", "none", "-target-language", language]
    if language == PLURALS_ONLY:
        options.append("-pluralonly")
    command = ["pyside6-lupdate", *files, *options, "-ts", str(ts)]
    subprocess.run(command, check=True, capture_output=True)


def compile_qm(ts: Path, qm: Path) -> None:
    subprocess.run(["pyside6-lrelease", str(ts), "-qm", str(qm)], check=True, capture_output=True)


def main(argv: list[str]) -> int:
    if argv[1:] not in (["update"], ["compile"]):
        print(__doc__, file=sys.stderr)
        return 2
    files = [ts_file(language, catalogue=name) for language in LANGUAGES for name in CATALOGUES]
    for ts in [*files, ts_file(PLURALS_ONLY)]:
        if argv[1] == "update":
            update(ts, ts.stem.split("_")[0])
        else:
            compile_qm(ts, ts.with_suffix(".qm"))
        print(f"{argv[1]}d {ts.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
