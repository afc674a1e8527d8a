"""Reading a scenario's [flow] (one sentence for what is wrong) and checking what was seen."""

from __future__ import annotations

from dataclasses import replace

import pytest

from client.lab import load_scenario
from client.ui.demo.demo_live import bundled_scenarios
from client.ui.demo.flow_file import FlowError, Seen, comparable, flow_from_dict, read_flow, unmet

SEEN = Seen(
    state="complete",
    text="Blue light scatters more.",
    thinking="",
    stage="",
    stages=("Typing…", "Reading your question… 1.2 s"),
    tier="fast",
    ttft_ms=182.0,
    banner="",
    buttons=(),
    answers=1,
    seconds=1.4,
)


def test_every_bundled_scenario_has_a_flow_and_the_lab_serves_it_unchanged() -> None:
    for path in bundled_scenarios():
        assert read_flow(path).steps, path.name
        assert load_scenario(path).name == path.stem  # the lab reads past [flow]


def test_a_file_without_flow(tmp_path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text('base = "fast"\n', encoding="utf-8")
    with pytest.raises(FlowError, match=r"^plain.toml has no \[flow\]"):
        read_flow(path)


@pytest.mark.parametrize(
    ("table", "sentence"),
    [
        ({}, "flow.steps must be a non-empty list of tables"),
        ({"steps": [{}]}, "flow step 1: say one of send, press, key, model, control, wait"),
        ({"steps": [{"send": "a", "press": "Retry"}]}, "flow step 1: say one of"),
        ({"steps": [{"send": "a", "expect": {"colour": "red"}}]}, "unknown expect key"),
        ({"steps": [{"send": "a", "expect": {"buttons": "Retry"}}]}, "list of labels"),
        ({"steps": [{"wait": "long"}]}, "wait is a number of seconds"),
        ({"steps": [{"send": "a", "until": "never"}]}, "until must be settled or answering or"),
        ({"steps": [{"send": "a"}], "tools": "always"}, "flow.tools must be 'ask' or 'allow'"),
        ({"steps": [{"send": "a"}], "api": "grpc"}, "flow.api must be"),
        ({"steps": [{"send": "a"}], "speed": 2}, "unknown flow key(s): speed"),
    ],
)
def test_bad_flows_say_what_is_wrong(table, sentence) -> None:
    with pytest.raises(FlowError) as caught:
        flow_from_dict(table)
    assert sentence in str(caught.value)


def test_expectations_met_and_unmet() -> None:
    met = {"state": "complete", "tier": "fast", "stage": "", "text": "scatters", "min_words": 4}
    assert unmet({**met, "saw_stage": "Reading your question", "buttons": []}, SEEN, None) == []
    assert unmet({"state": "failed", "stage": "busy", "buttons": ["Retry"]}, SEEN, None) == [
        'expected stage containing "busy", saw ""',
        'expected state "failed", saw "complete"',
        'expected buttons ["Retry"], saw []',
    ]
    assert unmet({"seconds_below": 1.0}, SEEN, None) == ["expected under 1.0 s, took 1.40"]


def test_keeps_text_means_added_to_what_was_there() -> None:
    before = replace(SEEN, text="Blue light", state="interrupted")
    assert unmet({"keeps_text": True}, SEEN, before) == []
    assert unmet({"keeps_text": True}, SEEN, replace(SEEN, text="Red")) != []
    assert unmet({"keeps_text": True}, SEEN, None) != []


def test_a_ticking_status_line_is_one_line() -> None:
    assert comparable("Loading model… 1.2 s") == comparable("Loading model… 13.9 s")


def test_a_tool_turn_in_a_flow() -> None:
    flow = flow_from_dict(
        {
            "tools": "ask",
            "steps": [
                {"send": "Use add for 2 and 3.", "expect": {"card": "Run the tool add"}},
                {"press": "Allow once", "until": "tool"},
            ],
        }
    )
    assert flow.tools == "ask" and flow.steps[1].until == "tool"
    assert flow_from_dict({"steps": [{"send": "a"}]}).tools == ""  # no tools offered
    asking = replace(SEEN, card='Run the tool add of Tachy demo tools? {"a": 2, "b": 3}')
    assert unmet({"card": "Run the tool add"}, asking, None) == []
    assert unmet({"card": ""}, SEEN, None) == []  # no card shown
    assert unmet({"card": "Run the tool add"}, SEEN, None) == [
        'expected card containing "Run the tool add", saw ""'
    ]
