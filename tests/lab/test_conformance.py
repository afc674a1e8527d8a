"""The lab against transcripts of each server's documented examples, field by field.

tests/lab/transcripts/*.json hold the examples (with where they come from). For each,
the lab answers the same request and every field of the example must be in the answer
with the same JSON type, recursively (numbers are one type, as in JSON; list elements
are checked against the example's first). Extra fields in the lab's answer are allowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lab.conftest import FAST

TRANSCRIPTS = Path(__file__).parent / "transcripts"
SERVERS = ("ollama", "vllm", "llamacpp")


def _examples() -> list[Any]:
    cases = []
    for server in SERVERS:
        data = json.loads((TRANSCRIPTS / f"{server}.json").read_text(encoding="utf-8"))
        for example in data["examples"]:
            scenario = data.get("scenario", {})
            cases.append(pytest.param(scenario, example, id=f"{server}: {example['name']}"))
    return cases


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def differences(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Where `actual` lacks a field of `expected` or has it with another type."""
    if kind(expected) != kind(actual):
        return [f"{path}: expected {kind(expected)}, got {kind(actual)} ({actual!r:.60})"]
    found: list[str] = []
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing")
            else:
                found += differences(value, actual[key], f"{path}.{key}")
    elif isinstance(expected, list) and expected:
        if not actual:
            found.append(f"{path}: expected items, got an empty array")
        for index, item in enumerate(actual):
            found += differences(expected[0], item, f"{path}[{index}]")
    return found


def test_differences_catches_a_missing_field_and_a_wrong_type() -> None:
    expected = {"a": 1, "b": {"c": "x"}, "d": [{"e": True}]}
    assert differences(expected, {"a": 2.5, "b": {"c": "y"}, "d": [{"e": False}]}) == []
    assert differences(expected, {"a": "1", "b": {}, "d": [{"e": 0}]}) == [
        "$.a: expected number, got string ('1')",
        "$.b.c: missing",
        "$.d[0].e: expected boolean, got number (0)",
    ]


def pick(raw: bytes, how: str) -> Any:
    if how == "whole":
        return json.loads(raw)
    if how.endswith("_line"):
        lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
        return lines[0] if how == "first_line" else lines[-1]
    events = [e.removeprefix("data: ") for e in raw.decode().split("\n\n") if e.strip()]
    objects = [json.loads(e) for e in events if e != "[DONE]"]
    return {"first_event": objects[0], "second_event": objects[1], "last_event": objects[-1]}[how]


@pytest.mark.parametrize(("scenario", "example"), _examples())
async def test_lab_answers_like_the_documented_example(
    start_lab, scenario: dict[str, Any], example: dict[str, Any]
) -> None:
    _, client = await start_lab(**{**FAST, **scenario})
    request = example["request"]
    if request["method"] == "GET":
        response = await client.get(request["path"])
    elif "raw" in request:
        response = await client.post(request["path"], content=request["raw"].encode())
    else:
        response = await client.post(request["path"], json=request["body"])
    assert response.status_code == example.get("status", 200), response.text
    answer = pick(response.content, example["pick"])
    assert differences(example["expected"], answer) == []
