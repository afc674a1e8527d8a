"""Pulling and deleting Ollama models, against the lab's /api/pull and /api/delete,
and the same from the command line (`tachy models ... pull NAME`, `rm NAME`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from client.backends import make_backend
from client.backends.base import Backend
from client.backends.errors import ModelNotFound
from client.cli import main
from client.lab import LabServer
from client.lab.endpoints.pulling import REGISTRY, SMALL_LAYERS
from client.lab.server import run_in_thread
from client.services.servers.model_admin import (
    ModelsNotManaged,
    PullProgress,
    delete_model,
    describe_models,
    pull_model,
)

NAME = "smollm2:135m"
SLOW = 2e9  # bytes/s: the 271 MB model in ~3 progress lines


@pytest.fixture
async def ollama() -> AsyncIterator[tuple[LabServer, Backend]]:
    lab = LabServer("fast")
    url = await lab.start()
    lab.state.pull_bytes_per_s = SLOW  # type: ignore[attr-defined]
    backend = await make_backend(url, "ollama")
    yield lab, backend
    await backend.aclose()
    await lab.stop()


async def test_pull_streams_growing_byte_counts_and_the_model_is_listed(ollama) -> None:
    _, backend = ollama
    seen: list[PullProgress] = [p async for p in pull_model(backend, NAME)]
    assert seen[0].status == "pulling manifest" and seen[-1].done
    completed = [p.completed for p in seen]
    assert completed == sorted(completed) and len(set(completed)) >= 4  # it moved
    assert seen[-1].total == REGISTRY[NAME] + sum(SMALL_LAYERS) == seen[-1].completed
    assert any(0 < (p.fraction or 0) < 1 for p in seen)
    facts = {f.name: f for f in await describe_models(backend)}
    assert NAME in facts
    assert facts[NAME].family and facts[NAME].quantization and facts[NAME].size_bytes


async def test_an_unknown_name_is_model_not_found(ollama) -> None:
    _, backend = ollama
    with pytest.raises(ModelNotFound, match="does not exist"):
        async for _ in pull_model(backend, "no-such-model:9b"):
            pass


async def test_a_cancelled_pull_leaves_no_model(ollama) -> None:
    lab, backend = ollama
    lab.state.pull_bytes_per_s = 1e8  # type: ignore[attr-defined]
    stream = pull_model(backend, NAME)
    async for progress in stream:
        if progress.completed:
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert NAME not in [m.name for m in await backend.list_models()]


async def test_delete_removes_it_and_a_second_delete_is_not_found(ollama) -> None:
    _, backend = ollama
    async for _ in pull_model(backend, NAME):
        pass
    await delete_model(backend, NAME)
    assert NAME not in [m.name for m in await backend.list_models()]
    with pytest.raises(ModelNotFound):
        await delete_model(backend, NAME)


async def test_an_openai_server_says_it_does_not_manage_models() -> None:
    lab = LabServer("fast")
    url = await lab.start()
    backend = await make_backend(url, "openai")
    try:
        with pytest.raises(ModelsNotManaged, match="only Ollama"):
            await delete_model(backend, NAME)
    finally:
        await backend.aclose()
        await lab.stop()


def test_the_command_line_pulls_and_removes(capsys: pytest.CaptureFixture[str]) -> None:
    lab = run_in_thread("fast")
    words = ["models", "--url", lab.url, "--api", "ollama"]

    def tachy(*args: str) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of the command run in this process."""
        try:
            code = main([*words, *args])
        except SystemExit as exit_:  # argparse's refusal
            code = int(exit_.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    try:
        code, out, err = tachy("pull", NAME)
        assert code == 0, err
        assert f"pulled {NAME}" in out and "success  100%" in err
        assert NAME in tachy()[1]
        assert tachy("rm", NAME)[0] == 0
        assert NAME not in tachy()[1]
        # The failure as a process gives it: its exit code, one sentence and no traceback.
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        again = subprocess.run(
            [sys.executable, "-m", "client", *words, "rm", NAME],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert again.returncode == 1 and "no model named" in again.stderr
        assert "Traceback" not in again.stderr
        assert tachy("pull")[0] == 2
    finally:
        lab.stop()
