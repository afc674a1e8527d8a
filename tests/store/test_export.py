from __future__ import annotations

import json

import pytest

from client.core.metrics import RequestMetrics
from client.store.conversations.export import (
    export_data,
    export_json,
    export_markdown,
    metrics_line,
)
from client.store.conversations.history import HistoryStore
from client.store.conversations.tool_calls import StoredToolCall, ToolCallStore
from client.store.metrics_store import MetricsStore

HOSTILE = '<script>alert("x")</script> **bold** `code` \\ "quotes" \u2028 ✓'


@pytest.fixture
def branched_chat(history: HistoryStore, metrics_store: MetricsStore) -> int:
    chat = history.create_conversation(
        "Latency\nchat", server="http://127.0.0.1:8080", model="smol"
    )
    question = history.add_message(chat.id, "user", "Show me a table")
    old = history.add_message(chat.id, "assistant", "OLD ANSWER", parent_id=question.id)
    metrics_store.record(
        RequestMetrics(ttft_ms=999.0),
        server="s",
        model="smol",
        outcome="complete",
        message_id=old.id,
    )
    answer = history.add_message(
        chat.id,
        "assistant",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n" + HOSTILE,
        parent_id=question.id,
        model="smol",
        thinking="first line\n\nsecond",
        state="stopped",
    )
    metrics_store.record(
        RequestMetrics(
            ttft_ms=45.2,
            ttfo_ms=60.0,
            tpot_ms=16.9,
            tokens_per_s=59.2,
            e2el_ms=1234.0,
            output_tokens=70,
            output_tokens_estimated=True,
            tier="instant",
        ),
        server="http://127.0.0.1:8080",
        model="smol",
        outcome="stopped",
        message_id=answer.id,
        cold=True,
        stages={"first_token": 45.2},
    )
    return chat.id


def test_json_export_has_the_active_path_with_metrics(
    history: HistoryStore, metrics_store: MetricsStore, branched_chat: int
) -> None:
    text = export_json(history, metrics_store, branched_chat)
    data = json.loads(text)
    assert data == export_data(history, metrics_store, branched_chat)
    assert data["title"] == "Latency\nchat" and data["model"] == "smol"
    question, answer = data["messages"]
    assert (question["role"], question["metrics"]) == ("user", [])
    assert answer["content"].endswith(HOSTILE) and answer["state"] == "stopped"
    assert answer["thinking"] == "first line\n\nsecond"
    [metrics] = answer["metrics"]
    assert metrics["ttft_ms"] == 45.2 and metrics["tokens_per_s"] == 59.2
    assert metrics["cold"] is True and metrics["stages"] == {"first_token": 45.2}
    assert metrics["time"].endswith("+00:00")
    assert "OLD ANSWER" not in text  # only the active path


def test_markdown_export_keeps_model_text_as_is(
    history: HistoryStore, metrics_store: MetricsStore, branched_chat: int
) -> None:
    text = export_markdown(history, metrics_store, branched_chat)
    assert text.startswith("# Latency chat\n")
    assert "## User\n\nShow me a table\n" in text
    assert "## Assistant · smol\n" in text
    assert "| a | b |\n|---|---|\n| 1 | 2 |\n\n" + HOSTILE + "\n" in text
    assert "> **Thinking**\n>\n> first line\n>\n> second\n" in text
    assert "*[stopped]*" in text
    assert (
        "*TTFT 45 ms · TTFO 60 ms · TPOT 17 ms · 59.2 tokens/s · E2E 1234 ms · "
        "≈70 tokens · tier instant · cold start · stopped*"
    ) in text
    assert "OLD ANSWER" not in text and "999" not in text


def test_switching_branch_changes_the_export(
    history: HistoryStore, metrics_store: MetricsStore, branched_chat: int
) -> None:
    question = history.active_path(branched_chat)[0]
    old = history.siblings(history.active_path(branched_chat)[1].id)[0]
    history.set_active(old.id)
    text = export_markdown(history, metrics_store, branched_chat)
    assert "OLD ANSWER" in text and "TTFT 999 ms" in text and question.content in text


def test_export_of_a_missing_conversation_raises(
    history: HistoryStore, metrics_store: MetricsStore
) -> None:
    with pytest.raises(KeyError):
        export_json(history, metrics_store, 404)


def test_metrics_line_with_nothing_measured() -> None:
    from client.store.metrics_store import MetricsRecord

    line = metrics_line(MetricsRecord(id=1, time=0.0, server="", model="", outcome="failed"))
    assert line == "TTFT – · TTFO – · TPOT – · E2E – · failed"


def test_an_answers_tool_calls_are_exported_where_they_were_made(
    history: HistoryStore, metrics_store: MetricsStore
) -> None:
    chat = history.create_conversation("tools")
    question = history.add_message(chat.id, "user", "Use add for 2 and 3.")
    answer = history.add_message(
        chat.id, "assistant", "Adding.The sum is 5.", parent_id=question.id
    )
    hostile = "``` <b>not</b> ```` end"
    ToolCallStore(history.db).save(
        [
            StoredToolCall(
                answer.id,
                1,
                0,
                7,
                "c1",
                "add",
                '{"a": 2}',
                "demo",
                "done",
                hostile,
                True,
                "tool",
                12.0,
            )
        ]
    )
    [_, exported] = export_data(history, metrics_store, chat.id)["messages"]
    [call] = exported["tool_calls"]
    assert (call["name"], call["result"], call["at"], call["is_error"]) == (
        "add", hostile, 7, True
    )  # fmt: skip
    text = export_markdown(history, metrics_store, chat.id)
    card = '**Tool** `add` · demo · 12 ms · tool\n\n```json\n{"a": 2}\n```\n\n'
    assert f"Adding.\n\n{card}`````text\n{hostile}\n`````\n\nThe sum is 5.\n" in text
