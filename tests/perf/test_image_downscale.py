"""Issue 30's latency lever: a 12-megapixel phone photo cut to the model's input size
(1,024 px) before it is sent. Against the lab's vision model (encoding at 150 ms per
megapixel, as vision encoders cost), the same photo is sent whole and downscaled, in
turns, through the app's own session: bytes sent, the client's preparation and TTFT
(request written -> first token), each the median of its rounds. The goal: a fraction
of the bytes, and the first token sooner (TTFT lower with the downscale), the baseline
being the whole photo in the same run."""

from __future__ import annotations

import io
import statistics
from collections.abc import AsyncIterator

import numpy as np
import pytest
from PIL import Image

from client.backends import OllamaBackend
from client.core.images import Attachment
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession
from client.services.images.preparation import Preparation, prepare_bytes
from client.store.conversations.history import HistoryStore
from client.store.db import Database

pytestmark = pytest.mark.timeout(600)

ROUNDS = 3
LAB = {"ttft": 50, "tpot_ms": 2, "output_tokens": 4, "seed": 3}
VISION = {"vision": True, "encode_ms_per_megapixel": 150.0, "tokens_per_tile": 64}


def phone_photo() -> bytes:
    """4,000 x 3,000 px: a gradient under sensor-like noise, saved as a JPEG (~5 MB)."""
    rng = np.random.default_rng(30)
    height, width = 3000, 4000
    y = np.linspace(0, 1, height, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, width, dtype=np.float32)[None, :]
    ones = np.ones((height, width), np.float32)
    channels = [(200 * x + 30 * y) * ones, (120 + 100 * x * y) * ones, (220 - 180 * y) * ones]
    noise = rng.normal(0, 14, (height, width, 3)).astype(np.float32)
    pixels = np.clip(np.stack(channels, axis=-1) + noise, 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=92)
    return out.getvalue()


@pytest.fixture
async def lab_url() -> AsyncIterator[str]:
    lab = LabServer(scenario_from_dict({**LAB, "models": {"seer": VISION}}))
    yield await lab.start()
    await lab.stop()


async def ask(session: ChatSession, image: Attachment) -> float:
    generation = session.generate(None, "what is in this photo?", images=[image])
    async for _event in generation:
        pass
    assert generation.finished is not None and generation.finished.metrics.ttft_ms is not None
    return generation.finished.metrics.ttft_ms


async def test_the_downscaled_photo_reaches_its_first_token_sooner(lab_url: str) -> None:
    photo = phone_photo()
    backend = OllamaBackend(lab_url)
    database = Database(":memory:")
    session = ChatSession(backend, "seer", HistoryStore(database, recover=False))
    figures: dict[str, dict[str, list[float]]] = {
        way: {"prepare_ms": [], "ttft_ms": [], "bytes": []} for way in ("whole", "downscaled")
    }
    try:
        await ask(session, await prepare_bytes(photo, "photo.jpg"))  # connection and load
        for _ in range(ROUNDS):
            for way, downscale in (("whole", False), ("downscaled", True)):
                image = await prepare_bytes(photo, "photo.jpg", Preparation(downscale=downscale))
                figures[way]["prepare_ms"].append(image.prepare_ms)
                figures[way]["bytes"].append(len(image.sent.data))
                figures[way]["ttft_ms"].append(await ask(session, image))
    finally:
        await backend.aclose()
        database.close()
    median = {way: {k: statistics.median(v) for k, v in f.items()} for way, f in figures.items()}
    whole, cut = median["whole"], median["downscaled"]
    print(
        f"\n12-megapixel photo ({len(photo) / 1e6:.1f} MB JPEG) to the lab's vision model, "
        f"median of {ROUNDS}:"
    )
    for way, m in median.items():
        print(
            f"  {way:>10}: {m['bytes'] / 1e6:6.2f} MB sent, prepared in "
            f"{m['prepare_ms']:6.0f} ms, TTFT {m['ttft_ms']:6.0f} ms, "
            f"prepared + TTFT {m['prepare_ms'] + m['ttft_ms']:6.0f} ms"
        )
    print(f"  bytes sent {cut['bytes'] / whole['bytes']:.1%} of the whole photo (goal: a "
          f"fraction); TTFT {cut['ttft_ms'] / whole['ttft_ms']:.2f}x (goal < 1)")  # fmt: skip
    assert cut["bytes"] < whole["bytes"] / 4
    assert cut["ttft_ms"] < whole["ttft_ms"]
