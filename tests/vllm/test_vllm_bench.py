"""`tachy bench` against a real vLLM, with vLLM's own per-request figures in its summary,
beside `vllm bench serve` on the same prompts (when the vLLM install has it): both tables
are printed side by side. The figures are not compared: this tier checks behaviour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.vllm.conftest import ROOT, VllmServer, vllm_cpu

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1200)]
PROMPT = "Name three colours."
N, MAX_TOKENS = 5, 32
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}  # fmt: skip


def tachy_bench(vllm: VllmServer, out: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "client", "bench", "--url", vllm.url, "-m", vllm.model,
         "-n", str(N), "--prompt", PROMPT, "--max-tokens", str(MAX_TOKENS), "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def vllm_bench(vllm: VllmServer, folder: Path) -> dict[str, Any] | None:
    """`vllm bench serve` on the same prompt, one at a time; None when it is not installed."""
    home = Path(os.environ.get("TACHY_VLLM_HOME", Path.home() / ".cache" / "tachy-vllm"))
    command = home / "venv" / "bin" / "vllm"
    if not command.is_file():
        return None
    prompts = folder / "prompts.jsonl"
    prompts.write_text(json.dumps({"prompt": PROMPT}) + "\n", encoding="utf-8")
    tokenizer = subprocess.run(
        [str(vllm_cpu()), "path"], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    done = subprocess.run(
        [str(command), "bench", "serve", "--backend", "openai-chat", "--base-url", vllm.url,
         "--endpoint", "/v1/chat/completions", "--model", vllm.model, "--tokenizer", tokenizer,
         "--dataset-name", "custom", "--dataset-path", str(prompts), "--skip-chat-template",
         "--custom-output-len", str(MAX_TOKENS), "--num-prompts", str(N),
         "--max-concurrency", "1", "--save-result", "--result-dir", str(folder),
         "--result-filename", "vllm-bench.json"],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
        env={**os.environ, **OFFLINE},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads((folder / "vllm-bench.json").read_text(encoding="utf-8"))


def test_tachy_bench_beside_vllm_bench_serve(vllm: VllmServer, tmp_path: Path) -> None:
    ours = tachy_bench(vllm, tmp_path / "tachy.json")
    assert ours["n"] == N and ours["errors"] == 0 and not ours["output_tokens_estimated"]
    server = ours["server_timings"]  # vLLM's own per-request metrics, summarised
    assert {"server_ttft_ms", "server_queue_ms", "server_prompt_ms", "server_tpot_ms"} <= set(
        server
    )
    assert all(r["server_timings"]["vllm"]["mean_itl_ms"] > 0 for r in ours["requests"])
    theirs = vllm_bench(vllm, tmp_path)
    rows = [
        ("TTFT mean", ours["ttft_ms"]["mean"], "mean_ttft_ms"),
        ("TTFT median", ours["ttft_ms"]["median"], "median_ttft_ms"),
        ("TTFT P99", ours["ttft_ms"]["p99"], "p99_ttft_ms"),
        ("TPOT mean", ours["tpot_ms"]["mean"], "mean_tpot_ms"),
        ("TPOT median", ours["tpot_ms"]["median"], "median_tpot_ms"),
        ("ITL mean", ours["itl_ms"]["mean"], "mean_itl_ms"),
        ("output tokens/s", ours["output_throughput"], "output_throughput"),
    ]
    print(f"\n{N} requests of {PROMPT!r}, up to {MAX_TOKENS} tokens, one at a time")
    print(f"{'':16} {'tachy bench':>12} {'vllm bench':>12} {'vLLM itself':>12}")
    own = {"TTFT mean": server["server_ttft_ms"]["mean"],
           "TTFT median": server["server_ttft_ms"]["median"],
           "TPOT mean": server["server_tpot_ms"]["mean"]}  # fmt: skip
    for name, value, key in rows:
        other = f"{theirs[key]:12.1f}" if theirs else f"{'-':>12}"
        itself = f"{own[name]:12.1f}" if name in own else f"{'':>12}"
        print(f"{name:16} {value:12.1f} {other} {itself}")
    if theirs is None:
        print("(vllm bench serve is not installed beside this vLLM)")
    else:
        assert theirs["completed"] == N and theirs["failed"] == 0
