"""From the Race dialog's picks to routes: which engine answers a local pick (the app's,
or one started for the race and stopped after it), warming, the cascade, keep-alive."""

from __future__ import annotations

from typing import Any

import pytest

from client.backends import backend_for
from client.backends.engine.engine_settings import EngineSettings
from client.services.planning.planner import Route
from client.services.race.race import RaceError
from client.services.race.race_routes import SPECULATION, RaceSetup, RoutePick
from client.services.servers.servers import ServerChoice, local_engine_choice


class StandInEngine:
    made = 0

    def __init__(self, spec: str = "") -> None:
        StandInEngine.made += 1
        self.url = f"http://127.0.0.1:{9000 + StandInEngine.made}"
        self.model = "smollm2"
        self.running = False
        self.stopped = False
        self.sleep_idle_s = -1
        self.settings = EngineSettings.default().with_changes(spec=spec)

    async def start(self) -> None:
        self.running = True

    async def stop(self) -> None:
        self.running, self.stopped = False, True

    async def is_sleeping(self) -> bool | None:
        return None

    async def restart(self) -> None:
        return None


class Parts:
    def __init__(self) -> None:
        self.app_engine = StandInEngine()
        self.asked: list[ServerChoice] = []
        self.warmed: list[tuple[str, Any]] = []
        self.backends: list[Any] = []
        self.cascade: list[Route] | None = None

    async def backend_of(self, choice: ServerChoice) -> Any:
        self.asked.append(choice)
        backend = backend_for(choice.url, "openai")
        self.backends.append(backend)
        return backend

    async def warm(self, backend: Any, model: str, engine: Any) -> None:
        self.warmed.append((model, engine))

    async def cascade_routes(self) -> list[Route] | None:
        return self.cascade

    def setup(self) -> RaceSetup:
        return RaceSetup(
            self.backend_of,
            lambda: self.app_engine,
            StandInEngine,
            self.cascade_routes,
            warm=self.warm,
        )

    async def close(self) -> None:
        for backend in self.backends:
            await backend.aclose()


@pytest.fixture
async def parts() -> Any:
    made = Parts()
    yield made
    await made.close()


async def test_cold_against_warm_gets_an_engine_of_its_own_stopped_after(parts: Parts) -> None:
    setup = parts.setup()
    local = local_engine_choice()
    cold, warm = await setup.routes(
        [RoutePick(local, "", fresh=True, label="cold"), RoutePick(local, "", warm=True)]
    )
    (fresh,) = setup.engines
    assert fresh is not parts.app_engine and fresh.running and parts.app_engine.running
    assert cold.routes[0].backend.base_url.startswith(fresh.url)
    assert warm.routes[0].backend.base_url.startswith(parts.app_engine.url)
    assert cold.name == "cold" and cold.routes[0].model == "smollm2"
    assert parts.warmed == [("smollm2", parts.app_engine)]  # only the warm one, first
    await setup.aclose()
    assert fresh.stopped and not parts.app_engine.stopped  # the app's engine runs on


async def test_speculation_the_app_engine_lacks_gets_an_engine_with_it(parts: Parts) -> None:
    setup = parts.setup()
    (route,) = (await setup.routes([RoutePick(local_engine_choice(), "", speculation=True)] * 2))[
        :1
    ]
    assert [e.settings.spec for e in setup.engines] == [SPECULATION, SPECULATION]
    assert route.speculation == SPECULATION
    await setup.aclose()


async def test_a_server_pick_keeps_its_settings_and_may_take_the_cascade(parts: Parts) -> None:
    ollama = ServerChoice("Ollama", "http://127.0.0.1:11434", "ollama")
    strong = Route(backend_for("http://127.0.0.1:8000", "openai"), "big", "vLLM", tier="strong")
    fast = Route(backend_for("http://127.0.0.1:8001", "openai"), "small", "vLLM", tier="fast")
    parts.backends += [strong.backend, fast.backend]
    parts.cascade = [fast, strong]
    setup = parts.setup()
    plain, cascaded = await setup.routes(
        [
            RoutePick(ollama, "llama3.2", keep_alive="10m", speculation=True),
            RoutePick(ollama, "llama3.2", cascade=True),
        ]
    )
    assert plain.routes[0].model == "llama3.2" and plain.name == "Ollama · llama3.2"
    assert plain.settings.keep_alive == "10m" and plain.speculation == ""  # not a local engine
    assert cascaded.routes == (fast, strong) and cascaded.name == "small / big"
    assert not setup.engines and not parts.warmed


async def test_a_race_needs_two_to_four_picks(parts: Parts) -> None:
    with pytest.raises(RaceError):
        await parts.setup().routes([RoutePick(local_engine_choice(), "")])
