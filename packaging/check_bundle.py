"""Checks the app bundle the way a user meets it, and measures it beside the pip install.

    python packaging/check_bundle.py [--rebuild] [--runs N]

Builds packaging/dist/tachy (packaging/bundle.py) when it is missing or --rebuild, then:
1. `tachy --version` prints the version;
2. the bundled `tachy serve-local` starts the bundled engine and model and answers a
   chat completion (the engine's child is the bundle's own program: no Python needed);
3. the bundled app in Chinese finds its three translation files;
4. the bundled app, offscreen, paints its main window; time from launch to the first
   paint, median of N runs, beside `python -m client` (the pip install) the same way;
5. prints the bundle's size. Exit 0 only if all hold. Too slow for the test suite
   (the build takes minutes): .ci/run runs it after the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle

PAINTED = re.compile(r"window first painted at")
READY = re.compile(r"window ready at")  # wired, its SIGTERM handler installed
TIMEOUT_S = 120.0


def program() -> Path:
    return bundle.BUNDLE / ("tachy.exe" if sys.platform == "win32" else "tachy")


def clean_env(home: Path) -> dict[str, str]:
    """No Python of ours on the paths: the bundle must not need it."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "VIRTUAL_ENV", "TACHY_"))
    }
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        TACHY_DATA_DIR=str(home / "tachy"),
        PATH="/usr/bin:/bin",
    )
    return env


def check_version(env: dict[str, str]) -> str:
    from client import __version__

    out = subprocess.run(
        [str(program()), "--version"], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stdout.strip() == f"tachy {__version__}", out
    return out.stdout.strip()


def check_engine(env: dict[str, str]) -> str:
    """The bundled engine answers one completion from the bundled model."""
    serve = subprocess.Popen(
        [str(program()), "serve-local"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert serve.stdout is not None
        info = dict(line.split(" ", 1) for line in _lines(serve.stdout, "pid", TIMEOUT_S))
        body = {
            "model": info["model"].strip(),
            "messages": [{"role": "user", "content": "Say hi."}],
            "max_tokens": 8,
        }
        request = urllib.request.Request(
            info["openai_url"].strip() + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.load(response)["choices"][0]["message"]["content"]
        assert answer.strip(), "the bundled engine answered nothing"
        return answer.strip()
    finally:
        serve.terminate()
        serve.wait(timeout=30)


def _lines(stream: object, last: str, timeout_s: float) -> list[str]:
    deadline = time.monotonic() + timeout_s
    lines = []
    while time.monotonic() < deadline:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith(last):
            return lines
    raise AssertionError(f"no '{last}' line: {lines}")


def time_to_first_paint(command: list[str], env: dict[str, str], cwd: Path | None) -> float:
    """Seconds from launch to the main window's first paint (its own log line)."""
    return launch(command, env, cwd)[0]


def check_chinese(env: dict[str, str]) -> str:
    """The bundle finds its translations: Tachy's, pyqtgraph's menus, Qt's qtbase."""
    _, lines = launch([str(program()), "--lang", "zh_CN"], env, None)
    line = next((line for line in lines if "language " in line), "")
    assert "language zh_CN (3 translation files)" in line, lines
    return line.split("tachy.ui ", 1)[-1].strip()


def launch(command: list[str], env: dict[str, str], cwd: Path | None) -> tuple[float, list[str]]:
    """(seconds to the first paint, the log lines until the window was ready), then quit."""
    started = time.monotonic()
    lines: list[str] = []
    app = subprocess.Popen(command, env=env, cwd=cwd, stderr=subprocess.PIPE, text=True)
    try:
        assert app.stderr is not None
        painted = None
        while True:
            line = app.stderr.readline()
            lines.append(line)
            if not line:
                raise AssertionError(f"{command[0]} ended before its window was ready")
            if PAINTED.search(line):
                painted = time.monotonic() - started
            if READY.search(line) and painted is not None:
                return painted, lines
            if time.monotonic() - started > TIMEOUT_S:
                raise AssertionError("no window painted")
    finally:
        app.terminate()  # SIGTERM closes the window like its close button
        assert app.wait(timeout=60) == 0, "the app did not quit cleanly"


def size_mib(folder: Path) -> float:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.rebuild or not program().exists():
        bundle.build()
    with tempfile.TemporaryDirectory(prefix="tachy-bundle-") as home:
        env = clean_env(Path(home))
        print("version:", check_version(env))
        print("bundled engine answered:", repr(check_engine(env)))
        print("bundled translations:", check_chinese(env))
        frozen = [time_to_first_paint([str(program())], env, None) for _ in range(args.runs)]
        pip_env = {**env, "PATH": os.environ["PATH"], "PYTHONPATH": str(bundle.ROOT)}
        pip = [sys.executable, "-m", "client"]
        source = [time_to_first_paint(pip, pip_env, bundle.ROOT) for _ in range(args.runs)]
    print(f"first paint, bundle: median {statistics.median(frozen):.2f} s of {frozen}")
    print(f"first paint, pip install: median {statistics.median(source):.2f} s of {source}")
    print(f"bundle size: {size_mib(bundle.BUNDLE):.0f} MiB in {bundle.BUNDLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
