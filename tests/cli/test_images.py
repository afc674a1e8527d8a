"""`tachy chat --image` and `tachy bench --image` against the lab's vision model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict

MODELS = {"models": {"seer": {"vision": True}, "reader": {}}}
DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "tokens_per_tile": 100}


@pytest.fixture
def lab_url() -> Iterator[str]:
    running = run_in_thread(scenario_from_dict({**DIALS, **MODELS}))
    try:
        yield running.url
    finally:
        running.stop()


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "field.jpg"
    Image.new("RGB", (3000, 2000), (90, 160, 40)).save(path, "JPEG")
    return path


@pytest.mark.parametrize("api", ["ollama", "openai"])
def test_chat_sends_the_image_cut_to_size_and_says_its_cost(
    lab_url: str, photo: Path, api: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["chat", "--url", lab_url, "--api", api, "-m", "seer", "--json"]
    code = main([*args, "--image", str(photo), "--image", str(photo), "what is this?"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err.count("image field.jpg: 3000x2000") == 2 and "-> sent 1024x683" in err
    final = json.loads(out.splitlines()[-1])
    # Two images of 2 x 2 tiles each, 100 tokens a tile, beside the text's few tokens.
    assert final["event"] == "metrics" and final["prompt_tokens"] > 800


def test_a_model_that_cannot_see_says_so_before_anything_is_sent(
    lab_url: str, photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["chat", "--url", lab_url, "-m", "reader", "--image", str(photo), "hi"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "reader cannot see images" in err and "nothing was sent" in err


def test_a_file_that_is_not_an_image_gets_one_sentence(
    lab_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    code = main(["chat", "--url", lab_url, "-m", "seer", "--image", str(notes), "hi"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip() == "“notes.txt” is not an image Tachy can read. Nothing was sent."


def test_bench_sends_the_image_with_every_request(
    lab_url: str, photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "bench.json"
    args = ["bench", "--url", lab_url, "--api", "ollama", "-m", "seer", "-n", "2"]
    code = main([*args, "--warmup", "0", "--image", str(photo), "--json", str(report)])
    assert code == 0, capsys.readouterr().err
    assert "image field.jpg" in capsys.readouterr().err
    data = json.loads(report.read_text())
    assert [r["error"] for r in data["requests"]] == [None, None]


def test_a_cascade_sends_the_image_question_to_the_model_that_sees(
    lab_url: str, photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["chat", "--fast", f"{lab_url}#reader", "--strong", f"{lab_url}#seer", "--json"]
    code = main([*args, "--image", str(photo), "hi"])  # the rules alone say: fast
    out, err = capsys.readouterr()
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    route = events[0]
    assert (route["event"], route["route"], route["model"]) == ("route", "strong", "seer")
    assert "seer can see the image" in route["reason"]
    assert not [e for e in events if e["event"] == "fallback"]
    assert "image field.jpg: 3000x2000" in err
    assert events[-1]["event"] == "metrics" and events[-1]["prompt_tokens"] > 400  # 2 x 2 tiles


def test_a_cascade_without_an_image_keeps_the_rules_route(
    lab_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["chat", "--fast", f"{lab_url}#reader", "--strong", f"{lab_url}#seer", "--json"]
    assert main([*args, "hi"]) == 0
    route = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (route["route"], route["model"]) == ("fast", "reader")
