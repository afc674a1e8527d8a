"""`tachy chat --mcp FILE` end to end: the lab's tool-calling model on loopback, the demo
MCP server (client/lab/mcp_demo) started from an mcpServers file, the loop between them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict
from client.lab.mcp_demo.server import build_server
from client.services.tools.tool_offer import tool_schema_tokens
from client.services.tools.tool_types import ToolInfo

ROOT = Path(__file__).resolve().parents[2]
ADD = "Use add for 2 and 3."


@pytest.fixture(scope="module")
def lab_url() -> Iterator[str]:
    dials = {"ttft": 5, "tpot_ms": 1, "server": "vllm", "tool_calls_style": "interleaved"}
    running = run_in_thread(scenario_from_dict(dials))
    yield running.url
    running.stop()


@pytest.fixture
def mcp_file(tmp_path: Path) -> Path:
    demo = {"command": sys.executable, "args": ["-m", "client.lab.mcp_demo"],
            "env": {"PYTHONPATH": str(ROOT)}}  # fmt: skip
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"demo": demo}}), encoding="utf-8")
    return path


def _chat(url: str, mcp: Path, *more: str) -> list[str]:
    return ["chat", "--url", url, "--api", "openai", "-m", "tachy-lab", "--mcp", str(mcp), *more]


def test_an_allowed_tool_runs_and_the_answer_reads_it(
    lab_url: str, mcp_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_chat(lab_url, mcp_file, "--allow-tools", "add", ADD))
    out, err = capsys.readouterr()
    assert code == 0
    assert out == "The tools answered: add gave 5.0."
    assert "tools: add, slow_count, fail, hang, die" in err
    assert 'tool add {"a": 2, "b": 3} on demo' in err and "tool add: 5.0 (" in err
    assert "turn: 2 model calls" in err and "answered" in err


def test_without_a_terminal_a_call_is_denied_and_the_model_told(
    lab_url: str, mcp_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_chat(lab_url, mcp_file, "--json", ADD))
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    result = next(line for line in lines if line["event"] == "tool_result")
    assert (result["content"], result["is_error"], result["ms"]) == ("denied by the user", True, 0)
    assert "add denied: there is no terminal to ask (pass --allow-tools add)" in err
    assert code == 0 and lines[-1]["outcome"] == "answered"


def test_the_step_limit_is_said_plainly(
    lab_url: str, mcp_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_chat(lab_url, mcp_file, "--allow-tools", "all", "--tool-steps", "1", ADD))
    err = capsys.readouterr().err
    assert code == 1
    assert "The model still called tools after 1 model calls, so Tachy stopped." in err


def test_json_lines_as_a_subprocess(lab_url: str, mcp_file: Path) -> None:
    text = "Use add for 2 and 3, then fail because of Rain."
    args = _chat(lab_url, mcp_file, "--allow-tools", "all", "--json", text)
    done = subprocess.run(
        [sys.executable, "-m", "client", *args], capture_output=True, text=True,
        stdin=subprocess.DEVNULL, env=_env(), timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    calls = [line for line in lines if line["event"] == "tool_call"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("add", {"a": 2, "b": 3}),
        ("fail", {"reason": "Rain"}),
    ]
    results = {r["name"]: r for r in lines if r["event"] == "tool_result"}
    assert set(results["add"]) == {"event", "id", "name", "ms", "is_error", "content"}
    assert (results["add"]["content"], results["add"]["is_error"]) == ("5.0", False)
    assert results["fail"]["is_error"] and results["fail"]["content"].endswith("Rain")
    assert results["add"]["id"] == calls[0]["id"]
    states = [line for line in lines if line["event"] == "state"]
    assert {"event": "state", "state": "using_tool", "tool": "add"} in states
    assert lines[-1]["event"] == "tools" and lines[-1]["tool_calls"] == 2
    assert lines[-1]["outcome"] == "answered" and "Traceback" not in done.stderr


def test_ctrl_c_during_a_hung_tool_exits_130_and_ends_the_server(
    lab_url: str, mcp_file: Path
) -> None:
    args = _chat(lab_url, mcp_file, "--allow-tools", "all", "--json", "Use hang.")
    chat = subprocess.Popen(
        [sys.executable, "-m", "client", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True, env=_env(),
    )  # fmt: skip
    assert chat.stdout is not None and chat.stderr is not None
    for line in chat.stdout:
        if json.loads(line) == {"event": "state", "state": "using_tool", "tool": "hang"}:
            break
    servers = psutil.Process(chat.pid).children()
    chat.send_signal(signal.SIGINT)
    rest, err = chat.communicate(timeout=30)
    assert chat.returncode == 130
    assert "Traceback" not in err and err.rstrip().endswith("stopped")
    last = json.loads(rest.splitlines()[-1])
    assert (last["event"], last["outcome"]) == ("tools", "stopped")
    _, alive = psutil.wait_procs(servers, timeout=30)
    assert not alive  # the stuck server did not outlive the command


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_bench_splits_each_turn_into_model_and_tool_time(
    lab_url: str, mcp_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "Use add for 2 and 3, then slow_count for 0.05 seconds in 2 steps."
    args = ["bench", "--url", lab_url, "--api", "openai", "-m", "tachy-lab", "-n", "2"]
    code = main([*args, "--mcp", str(mcp_file), "--allow-tools", "all", "--prompt", text,
                 "--json"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    assert [t["outcome"] for t in report["turns"]] == ["answered", "answered"]
    turn = report["turns"][0]
    assert (turn["model_calls"], turn["tool_calls"]) == (2, 2)
    assert turn["model_ms"] > 0 and turn["tools_ms"] > 0
    assert turn["model_ms"] + turn["tools_ms"] <= turn["ms"]  # the parallel calls overlap
    assert report["summaries"]["result_ttft_ms"]["n"] == 2
    assert "time in tools:" in err and "result ttft" in err


def _on_a_terminal(args: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """The command with a terminal (a pty) as stdin, waiting at its y/n question."""
    primary, secondary = os.openpty()
    chat = subprocess.Popen(
        [sys.executable, "-m", "client", *args], stdin=secondary, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=_env(),
    )  # fmt: skip
    os.close(secondary)
    assert chat.stderr is not None
    said = b""
    while b"[N]o: " not in said:
        chunk = os.read(chat.stderr.fileno(), 4096)
        assert chunk, f"the command ended without asking: {said!r}"
        said += chunk
    assert b'Run add {"a": 2, "b": 3} on demo?' in said
    return chat, primary


def test_a_terminal_is_asked_and_yes_runs_the_tool(lab_url: str, mcp_file: Path) -> None:
    chat, terminal = _on_a_terminal(_chat(lab_url, mcp_file, ADD))
    os.write(terminal, b"y\n")
    out, _ = chat.communicate(timeout=60)
    os.close(terminal)
    assert chat.returncode == 0
    assert out.decode() == "The tools answered: add gave 5.0."


def test_ctrl_c_at_the_question_exits_130(lab_url: str, mcp_file: Path) -> None:
    chat, terminal = _on_a_terminal(_chat(lab_url, mcp_file, "--json", ADD))
    chat.send_signal(signal.SIGINT)
    out, err = chat.communicate(timeout=60)
    os.close(terminal)
    assert chat.returncode == 130 and b"Traceback" not in err
    last = json.loads(out.decode().splitlines()[-1])
    assert (last["event"], last["outcome"], last["approval_ms"] > 0) == ("tools", "stopped", True)


def test_the_plan_counts_the_tools_schemas(
    lab_url: str, mcp_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = asyncio.run(build_server().list_tools())
    demo = [ToolInfo("demo", t.name, t.description or "", t.input_schema) for t in listed]
    plain = ["chat", "--url", lab_url, "--api", "openai", "-m", "tachy-lab", "--json", ADD]
    assert main(plain) == 0
    without = _plan_line(capsys.readouterr().out)
    main(_chat(lab_url, mcp_file, "--allow-tools", "all", "--json", ADD))
    with_tools = _plan_line(capsys.readouterr().out)
    assert with_tools["prompt_tokens"] == without["prompt_tokens"] + tool_schema_tokens(demo)


def _plan_line(out: str) -> dict[str, Any]:
    lines = [json.loads(line) for line in out.splitlines()]
    return next(line for line in lines if line["event"] == "plan")
