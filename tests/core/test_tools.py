from __future__ import annotations

import json

import pytest

from client.core.events import Done, DoneReason, ToolCallsRequested, as_dict
from client.core.tools import ToolCall, parse_arguments


@pytest.mark.parametrize(
    ("text", "arguments"),
    [("", {}), ("  ", {}), ('{"a": 1}', {"a": 1}), ('"{\\"a\\": 1}"', {"a": 1})],
)
def test_arguments_that_read(text: str, arguments: dict) -> None:
    assert parse_arguments(text) == (arguments, None)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"a": 1', "the arguments are not valid JSON (Expecting ',' delimiter at character 7)"),
        ("[1]", "the arguments are an array, not a JSON object"),
        ("3", "the arguments are a number, not a JSON object"),
        ("null", "the arguments are null, not a JSON object"),
    ],
)
def test_arguments_that_do_not(text: str, why: str) -> None:
    assert parse_arguments(text) == ({}, why)


def test_arguments_nested_too_deeply_are_a_bad_call_not_a_crash() -> None:
    assert parse_arguments("[" * 200_000) == ({}, "the arguments are nested too deeply to read")


def test_events_with_calls_print_as_json() -> None:
    call = ToolCall("call_a", "add", {"a": 1}, '{"a": 1}')
    done = as_dict(Done(DoneReason.TOOL_CALLS, "", "", (call,)))
    assert json.loads(json.dumps(done))["tool_calls"][0]["arguments"] == {"a": 1}
    assert as_dict(ToolCallsRequested((call,)))["calls"][0]["name"] == "add"
    assert not Done(DoneReason.STOP).wants_tools
