"""The lab's tier presets land inside their tier from the first reply (nothing warmed
up): the TTFT the client measures, printed beside the tier's range. A wall-clock figure,
so a benchmark; tests/lab/test_backends_check.py checks each waits its tier's floor."""

from __future__ import annotations

import pytest

from client.backends.apis.ollama.backend import OllamaBackend
from client.lab import LabServer, scenario_from_dict
from tests.lab.test_backends_check import request, run

pytestmark = pytest.mark.perf


@pytest.mark.parametrize(
    ("preset", "low", "high"),
    [("instant", 0, 100), ("fast", 100, 300), ("typing", 300, 1000), ("slow", 1000, 4000)],
)
async def test_tier_presets_land_in_their_tier_from_the_first_reply(preset, low, high) -> None:
    server = LabServer(scenario_from_dict({"base": preset, "output_tokens": 3}))
    backend = OllamaBackend(await server.start())
    try:
        _, stream = await run(backend, request())
    finally:
        await backend.aclose()
        await server.stop()
    ttft_ms = stream.metrics().ttft_ms
    print(f"\n{preset}: first reply's TTFT {ttft_ms:.0f} ms (goal {low}-{high} ms)")
    assert low <= ttft_ms < high
