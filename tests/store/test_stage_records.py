"""The one codec between a request's typed stages and what the metrics store keeps."""

from __future__ import annotations

import json

from client.store.stage_records import (
    MODEL_CALL,
    TOOL_CALL,
    ImagesPart,
    LoadingPart,
    ModelCallPart,
    RetrievalPart,
    RoutePart,
    SourcePlace,
    StageRecord,
    ToolCallPart,
    decode_stages,
    encode_stages,
    part_counts,
    stage_from_counts,
)

ROUTE = RoutePart("fast", "SmolLM2-135M", "a short everyday question", 0.1, "rules", "", 1, 0.2)
KYOTO = SourcePlace("/notes/kyoto.md", 1, 3, "line")


def test_every_part_goes_through_the_store_and_back() -> None:
    records = [
        StageRecord("loading", -12.5, 300.0, loading=LoadingPart(280.0)),
        StageRecord(
            "understanding", 300.0, 350.0, route=ROUTE, images=ImagesPart(1, 2048, 4096, 3.5)
        ),
        StageRecord("retrieving", 350.0, 362.0, retrieval=RetrievalPart(1, 120, (KYOTO,))),
        StageRecord("answering", 362.0, None),
    ]
    stored = json.loads(json.dumps(encode_stages(records)))  # as the row keeps it
    assert decode_stages(stored) == records
    assert decode_stages(json.dumps(stored)) == records  # the row's text, too


def test_a_fallback_is_attempt_two() -> None:
    again = RoutePart("strong", "qwen2.5:7b", "the fast model failed", by="fallback", attempt=2)
    counts = part_counts(again)
    assert counts["attempt"] == 2
    assert stage_from_counts("understanding", 0.0, 1.0, counts).route == again


def test_old_rows_still_read() -> None:
    """Rows written before the stages had parts: name -> [start, end], and the oldest
    name -> ms (no start: left out)."""
    assert decode_stages({"understanding": [0, 5], "answering": [5, None]}) == [
        StageRecord("understanding", 0.0, 5.0),
        StageRecord("answering", 5.0, None),
    ]
    assert decode_stages({"request_written": 0.0, "first_token": 120.5}) == []
    assert decode_stages([{"name": "understanding", "start_ms": 0, "end_ms": 9}]) == [
        StageRecord("understanding", 0.0, 9.0)
    ]


def test_damaged_values_are_left_out_not_raised() -> None:
    assert decode_stages("not json") == []
    assert decode_stages(None) == []
    damaged = [
        {"stage": "understanding", "start_ms": "soon"},
        {"stage": 3, "start_ms": 0},
        {"stage": "understanding", "start_ms": 0, "route": 7, "images": "many"},
        {"stage": "retrieving", "start_ms": 0, "passages": 2, "sources": [{"path": 1}]},
    ]
    decoded = decode_stages(damaged)
    assert decoded == [
        StageRecord("understanding", 0.0),
        StageRecord("retrieving", 0.0, retrieval=RetrievalPart(2, 0)),
    ]


def test_a_turns_model_and_tool_calls_go_through_the_store_and_back() -> None:
    slow = ToolCallPart(1, "slow_count", "demo", (7.5, 8.0), (8.5, 420.0), (421.0, 750.5), 21)
    denied = ToolCallPart(1, "add", "demo", (7.6, 8.0), (420.0, 900.0), None, 18, True)
    records = [
        StageRecord("understanding", 1.0, 8.2),
        StageRecord(MODEL_CALL, -3.0, 8.2, model_call=ModelCallPart(1, 0.0, 7.5, 8.0)),
        StageRecord(MODEL_CALL, 900.5, 960.0, model_call=ModelCallPart(2, 902.0, 931.0, 958.0)),
        StageRecord(TOOL_CALL, 7.5, 750.5, tool_call=slow),
        StageRecord(TOOL_CALL, 7.6, 900.0, tool_call=denied),
    ]
    stored = json.loads(json.dumps(encode_stages(records)))
    assert decode_stages(stored) == records
    assert records[2].model_call is not None and records[2].model_call.ttft_ms == 29.0
    assert slow.run_ms == 329.5 and denied.run_ms is None


def test_a_damaged_call_record_keeps_its_stage_without_the_part() -> None:
    [model, tool] = decode_stages(
        [
            {"stage": MODEL_CALL, "start_ms": 0.0, "end_ms": 5.0, "step": "one"},
            {"stage": TOOL_CALL, "start_ms": 1.0, "end_ms": 2.0, "step": 1, "tool": 7},
        ]
    )
    assert model.model_call is None and tool.tool_call is None
