"""The lab's vLLM fixtures are still what this vLLM says: the cases of
tests/lab/vllm_cases.py are recorded afresh through `tachy lab --upstream URL --record`
and each fresh reply must have the committed one's shape and fixed values (the same
checks tests/lab/test_vllm_recordings.py holds the lab to). A difference means vLLM
changed: record the fixtures again (tests/vllm/record_lab_fixtures.py) and follow it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lab.test_vllm_recordings import (
    PATHS,
    REPLIES,
    body_of,
    check_stream,
    check_whole,
    content_type,
    events,
    families,
    shape_differences,
)
from tests.lab.vllm_cases import GENERATION
from tests.vllm.conftest import VllmServer
from tests.vllm.record_lab_fixtures import record

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1200)]


def test_a_fresh_recording_matches_the_lab_fixtures(vllm: VllmServer, tmp_path: Path) -> None:
    record(vllm.url, tmp_path)
    fresh = json.loads((tmp_path / "vllm_0_32.json").read_text(encoding="utf-8"))
    replies = fresh["recording"]["replies"]
    assert [r["status"] for r in replies] == [r["status"] for r in REPLIES]
    for case, now, then in zip(GENERATION, replies, REPLIES, strict=True):
        assert content_type(now) == content_type(then), case.name
        if content_type(then).startswith("text/event-stream"):
            check_stream(events(body_of(then)), events(body_of(now)), case)
        else:
            check_whole(json.loads(body_of(then)), json.loads(body_of(now)))
    paths = json.loads((tmp_path / "vllm_0_32_paths.json").read_text(encoding="utf-8"))
    for name, now in paths["replies"].items():
        then = PATHS[name]
        assert (now["status"], now["content_type"]) == (then["status"], then["content_type"])
        if name == "metrics":
            assert families(now["body"]) == families(then["body"])
        elif name == "models":
            assert shape_differences(json.loads(then["body"]), json.loads(now["body"])) == []
        else:
            assert now["body"] == then["body"]
