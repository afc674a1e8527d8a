"""What Help > About says: Tachy's version, the local engine's, the data folder."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from client import __version__
from client.store.places import data_dir

ENGINE_PACKAGES = ("xllamacpp", "llama-cpp-python")  # the engine's package, newest first


def tachy_version() -> str:
    return __version__


def engine_version() -> str | None:
    """ "xllamacpp 0.2.1", or None when no local engine is installed."""
    for package in ENGINE_PACKAGES:
        try:
            return f"{package} {metadata.version(package)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def data_folder() -> Path:
    return data_dir()
