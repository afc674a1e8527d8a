"""The real vLLM router (`vllm-router`, from its wheel in the test extra) in front of two lab
workers: Tachy knows it by its own endpoints, names it "vLLM router · 2 workers" in
`tachy detect`, `tachy models` and the picker, and never takes the /version, /metrics or
/api/version it forwards to a worker for its own."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from client.backends import make_backend
from client.backends.detect import detect_server, discover_local_servers
from client.backends.figures.fetch import ServerFigures
from client.backends.kinds.vllm import VLLM
from client.backends.kinds.vllm_router import VLLM_ROUTER
from client.backends.kinds.vllm_router.figures import parse_workers
from client.backends.kinds.vllm_router.workers import router_name, workers
from client.cli import main
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from client.services.hud.server_stats import ServerStatsPoller
from client.services.servers.servers import _detected_name
from tests.backends.kinds.routers import running_router


@dataclass
class Router:
    url: str
    port: int
    workers: list[RunningLab]


@pytest.fixture(scope="module")
def router() -> Iterator[Router]:
    labs = [run_in_thread(scenario_from_dict({"seed": 1, "ttft": 5, "tpot_ms": 1})) for _ in "ab"]
    try:
        with running_router([lab.url for lab in labs]) as running:
            yield Router(running.url, running.port, labs)
    finally:
        for lab in labs:
            lab.stop()


def test_a_router_is_named_by_its_own_list_of_workers() -> None:
    assert router_name({"urls": ["http://a:8000", "http://b:8000"]}) == "vLLM router · 2 workers"
    assert router_name({"urls": ["http://a:8000"]}) == "vLLM router · 1 worker"
    assert router_name({"detail": "Not Found"}) is None and router_name(None) is None
    answer = {"workers": [{"url": "http://a", "is_healthy": False, "load": -1}, {"nope": 1}]}
    (only,) = workers(answer) or []
    assert (only.url, only.healthy, only.load) == ("http://a", False, None)
    assert parse_workers({"detail": "Not Found"}).error == (
        "The server's /workers did not answer JSON."
    )


async def test_detection_names_the_router_not_the_worker_it_forwards_to(router: Router) -> None:
    """The lab workers answer /api/version as Ollama would, and the router forwards it:
    without asking /list_workers first, the router would pass for an Ollama."""
    found = await detect_server(router.url)
    assert (found.api, found.name) == ("openai", "vLLM router · 2 workers")
    (local,) = await discover_local_servers((router.port,), budget_s=5.0)
    assert local.name == "vLLM router · 2 workers"
    picker = _detected_name(local.api, local.url, local.name)
    assert picker == f"vLLM router · 2 workers on this computer ({router.port})"


def test_tachy_detect_and_models_say_router(
    router: Router, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", "--url", router.url]) == 0
    assert capsys.readouterr().out == "openai  vLLM router · 2 workers\n"
    assert main(["detect", "--ports", str(router.port), "--budget-ms", "5000"]) == 0
    assert "  openai  vLLM router · 2 workers  " in capsys.readouterr().out
    assert main(["models", "--url", router.url]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"vLLM router · 2 workers at {router.url}: 1 model"


async def test_the_backend_is_a_router_though_its_model_list_says_vllm(router: Router) -> None:
    backend = await make_backend(router.url)
    try:
        await backend.list_models()  # forwarded: a worker's owned_by "vllm"
        assert backend.kind is VLLM
        assert await backend.server_kind() is VLLM_ROUTER and backend.kind.hides_worker
        assert backend.server_name == "vLLM router · 2 workers"
        request = ChatRequest(
            "tachy-lab", [ChatMessage("user", "hi")], GenerationOptions(max_tokens=4)
        )
        async with backend.chat(request) as stream:
            events = [event async for event in stream]
        assert isinstance(events[-1], Done) and events[-1].text
    finally:
        await backend.aclose()


async def test_the_server_view_shows_the_workers_never_a_forwarded_version(
    router: Router,
) -> None:
    figures = ServerFigures()
    try:
        poller = ServerStatsPoller(figures, router.url, "openai")
        snap = await poller.poll()
        again = await poller.poll()
    finally:
        await figures.aclose()
    assert not snap.error and snap.kind == VLLM_ROUTER.name
    assert snap.name == "vLLM router · 2 workers"
    assert sorted(w.url for w in snap.workers) == sorted(lab.url for lab in router.workers)
    assert all(w.healthy for w in snap.workers) and snap.running == 0
    # Its /version and /metrics are a worker's: none of their figures is shown as its own.
    assert snap.version is None and snap.ttft_n == 0 and snap.kv_cache_use is None
    assert again.kind == VLLM_ROUTER.name
