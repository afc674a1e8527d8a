"""Images against a real llama.cpp vision server (issue 39, items 12-13): `tachy bench
--image` has the server encode the image for every request (each starts with its own
word, so no prompt cache keeps it) and reports the image and the prompt tokens;
`tachy chat --json` says what was sent in an image event; `tachy models` says which
models can see. The server is llama-server with a random-weight pixtral projector
(tests/vision_server.py); it takes a while to start, so these run with the engine tier."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict
from tests.vision_server import ONE_WORKER, VisionServer

pytestmark = [pytest.mark.engine, pytest.mark.timeout(900), ONE_WORKER]

SIDE = (320, 256)  # 10 x 8 patches of 32 px: about 80 image tokens on pixtral


def _photo(tmp_path: Path) -> Path:
    noise = Image.effect_noise(SIDE, 60).convert("RGB")
    path = tmp_path / "noise.png"
    out = io.BytesIO()
    noise.save(out, "PNG")
    path.write_bytes(out.getvalue())
    return path


def _server(vision_server: VisionServer) -> list[str]:
    return ["--url", vision_server.url, "--api", "openai", "-m", vision_server.model]


def test_bench_encodes_the_image_for_every_request_and_reports_it(
    vision_server: VisionServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    photo = _photo(tmp_path)
    run = ["-n", "2", "--warmup", "0", "--max-tokens", "2", "--image", str(photo)]
    code = main(["bench", *_server(vision_server), *run, "--json", "-"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["varied_start"] is True
    (image,) = report["images"]
    assert (image["sent_width"], image["sent_height"]) == SIDE and image["prepare_ms"] >= 0
    text_only = 60  # the question and the template: well under this many tokens
    for request in report["requests"]:
        timings = request["server_timings"]["llamacpp"]
        # The image was encoded again: its tokens were computed, not reused from a cache.
        assert timings["prompt_n"] > text_only, timings
        assert request["prompt_tokens"] > text_only
    assert report["prompt_tokens"]["n"] == 2
    assert "encodes the images every time" in err and "prompt_tokens" in err


def test_chat_json_has_an_image_event(
    vision_server: VisionServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    photo = _photo(tmp_path)
    args = ["--json", "--max-tokens", "2", "--image", str(photo), "What is this?"]
    code = main(["chat", *_server(vision_server), *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    (image,) = [r for r in records if r["event"] == "image"]
    assert (image["sent_width"], image["sent_height"]) == SIDE
    assert image["original_bytes"] == photo.stat().st_size and image["sent_bytes"] > 0
    assert image["prepare_ms"] >= 0 and image["sent_pixels"] == SIDE[0] * SIDE[1]
    assert records.index(image) < next(i for i, r in enumerate(records) if r["event"] == "usage")


def test_models_says_which_can_see(
    vision_server: VisionServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["models", "--url", vision_server.url, "--api", "openai"]) == 0
    seeing = capsys.readouterr().out
    assert f"{vision_server.model}  sees images" in seeing
    text = run_in_thread(scenario_from_dict({"server": "llamacpp"}))  # /props: no vision
    try:
        assert main(["models", "--url", text.url, "--api", "openai", "--json"]) == 0
    finally:
        text.stop()
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["vision"] is False
