"""`tachy bench --type-ahead CPS` against the lab speaking llama.cpp (its prompt cache
keeps the last prompt, its prefill takes time per uncached token): the typed prompt's
first token comes sooner than the pasted one's, one line per mode, the same in --json."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from client.cli import main
from client.lab import LabServer, scenario_from_dict

LAB = {"server": "llamacpp", "ttft": 5, "tpot_ms": 1, "output_tokens": 2, "seed": 1}


@contextmanager
def lab_in_thread(**dials: object) -> Iterator[str]:
    """The lab on a loop of its own thread: the CLI runs its own loop in this one."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    lab = LabServer(scenario_from_dict({**LAB, **dials}))
    url = asyncio.run_coroutine_threadsafe(lab.start(), loop).result(30)
    try:
        yield url
    finally:
        asyncio.run_coroutine_threadsafe(lab.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


@pytest.mark.timeout(120)
def test_typed_and_pasted_prompts_each_get_a_line_and_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with lab_in_thread(prefill_tokens_per_s=400, n_batch=16) as url:
        code = main(
            ["bench", "--url", url, "--api", "openai", "--type-ahead", "400", "-n", "2", "--json"]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    line = next(x for x in err.splitlines() if x.startswith("type-ahead: TTFT P50 "))
    assert "(pasted: P50 " in line and "P95" in line
    report = json.loads(out)
    typed, pasted = report["type_ahead"], report["pasted"]
    assert report["cps"] == 400 and typed["n"] == pasted["n"] == 2
    assert all(tokens > 20 for tokens in typed["question_read_tokens"])
    assert typed["ttft_p50_ms"] < pasted["ttft_p50_ms"]  # the lab's prefill was read before


def test_cps_must_be_a_positive_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--type-ahead", "fast"])
    assert "is not a number of characters" in capsys.readouterr().err
