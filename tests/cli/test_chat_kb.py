"""`tachy chat --kb`: the question searched in the knowledge base, the passages sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli import main
from tests.backends.live_server import LiveServer, Script

# The search's budget for the tests that want its passages: 50 ms by default, which a
# busy machine's search may pass (tests/perf/test_knowledge_perf.py times the search).
PATIENT = ["--kb-budget", "60000"]


@pytest.fixture(autouse=True)
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kyoto.md").write_text("# Kyoto\n\nWe stayed at the Hotel Granvia.\n")
    (folder / "北京.txt").write_text("北京的烤鸭很好吃。\n", encoding="gb18030")
    assert main(["kb", "add", str(folder)]) == 0
    return folder


def test_json_prints_the_retrieved_event_first_and_sends_the_passages(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    with LiveServer(Script(tokens=["At the Granvia [1]."])) as server:
        code = main(
            [
                "chat",
                "--url",
                server.url,
                "-m",
                "m",
                "--json",
                "--kb",
                *PATIENT,
                "Where did we stay in Kyoto?",
            ]
        )
    out, err = capsys.readouterr()
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    lines = [line for line in lines if line["event"] != "state"]  # the turn's states
    assert [line["event"] for line in lines][:3] == ["retrieved", "plan", "started"]
    retrieved = lines[0]
    assert retrieved["timed_out"] is False and retrieved["ms"] > 0
    [passage] = retrieved["passages"]
    assert passage["path"] == str(notes / "kyoto.md") and passage["line_start"] == 1
    assert passage["score"] > 0
    sent = server.requests[0]["messages"][-1]["content"]
    assert f"[1] {notes / 'kyoto.md'}:1-3\n# Kyoto\n\nWe stayed at the Hotel Granvia." in sent
    assert sent.endswith("Question: Where did we stay in Kyoto?")
    assert f"[1] {notes / 'kyoto.md'}:1-3" in err


def test_a_chinese_question_finds_the_chinese_note(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LiveServer(Script(tokens=["好吃"])) as server:
        assert main(["chat", "--url", server.url, "-m", "m", "--kb", *PATIENT, "烤鸭好吃吗？"]) == 0
    out, err = capsys.readouterr()
    assert out == "好吃"
    assert "searched your notes: 1 passages in" in err
    assert "北京的烤鸭很好吃。" in server.requests[0]["messages"][-1]["content"]


def test_past_the_budget_the_answer_goes_on_without_passages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LiveServer(Script(tokens=["ok"])) as server:
        args = ["chat", "--url", server.url, "-m", "m", "--json", "--kb", "--kb-budget", "0"]
        assert main([*args, "Kyoto hotel"]) == 0
    out, err = capsys.readouterr()
    retrieved = json.loads(out.splitlines()[0])
    assert retrieved["timed_out"] is True and retrieved["passages"] == []
    assert "answered without them" in err
    assert server.requests[0]["messages"][-1]["content"] == "Kyoto hotel"


def test_a_deleted_note_is_not_sent(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (notes / "kyoto.md").unlink()
    with LiveServer(Script(tokens=["?"])) as server:
        assert (
            main(
                ["chat", "--url", server.url, "-m", "m", "--json", "--kb", *PATIENT, "Kyoto hotel"]
            )
            == 0
        )
    retrieved = json.loads(capsys.readouterr().out.splitlines()[0])
    assert retrieved["passages"] == []
    assert server.requests[0]["messages"][-1]["content"] == "Kyoto hotel"
