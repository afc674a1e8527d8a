"""`tachy bench --pool A,B --policy hedged --router R`, end to end against the real vLLM
router (from its wheel) in front of two lab workers: the router's row beside the pool's,
its policy and the requests each worker served read from its metrics, a router routing to
other workers said so. Shape and sanity only; the speed claim is tests/perf's
(test_router_vs_pool.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from client.cli import main
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from tests.backends.kinds.routers import RunningRouter, running_router

N = 6
SCRIPT = {"seed": 1, "ttft": 5, "tpot_ms": 1, "output_tokens": 4}


@pytest.fixture(scope="module")
def workers() -> Iterator[list[RunningLab]]:
    labs = [run_in_thread(scenario_from_dict({**SCRIPT, "seed": seed})) for seed in (1, 2)]
    yield labs
    for lab in labs:
        lab.stop()


@pytest.fixture(scope="module")
def router(workers: list[RunningLab]) -> Iterator[RunningRouter]:
    with running_router([lab.url for lab in workers], "power_of_two") as running:
        yield running


def bench(workers: list[RunningLab], *more: str) -> int:
    pool = ",".join(lab.url for lab in workers)
    given = ["--pool", pool, "--policy", "hedged", "-m", "tachy-lab", "-n", str(N)]
    return main(["bench", "--api", "openai", *given, "--warmup", "1", "--max-tokens", "4", *more])


def test_the_router_is_timed_beside_the_hedged_pool(
    workers: list[RunningLab], router: RunningRouter, capsys: pytest.CaptureFixture[str]
) -> None:
    routers = ["--router", router.url, "--router-metrics", router.metrics_url]
    assert bench(workers, *routers, "--json", "-") == 0
    out, table = capsys.readouterr()
    runs = json.loads(out)  # the JSON alone on stdout, the table on stderr
    assert [r["policy"] for r in runs] == ["single server", "hedged", "router (power_of_two)"]
    assert all(r["n"] == N and r["errors"] == 0 and r["ttft_ms"]["n"] == N for r in runs)
    routed = runs[2]
    assert routed["via_router"] is True and routed["sent_twice"] is None
    assert routed["extra_requests"] == 0.0  # no worker failed: the router retried nothing
    served = {s["name"]: s["wins"] for s in routed["servers"]}
    assert served.keys() == {lab.url.split("://")[1] for lab in workers}
    assert sum(served.values()) == N  # the measured requests, warm-ups not counted
    assert "hedged vs router (power_of_two): P99 " in table
    assert "per worker (router (power_of_two)): " in table
    assert "does not route to the pool's servers" not in table


def test_a_router_in_front_of_other_workers_is_said(
    workers: list[RunningLab], capsys: pytest.CaptureFixture[str]
) -> None:
    """A router in front of the first worker alone, its metrics not given (looked for on
    port 29000, where they are not): its figures are shown, what it did is not guessed."""
    with running_router([workers[0].url], "cache_aware") as alone:
        assert bench(workers, "--router", alone.url, "--json", "-") == 0
    out, err = capsys.readouterr()
    assert f"the router at {alone.url} does not route to the pool's servers alone" in err
    routed = json.loads(out)[-1]
    assert routed["via_router"] is True and routed["n"] == N and routed["errors"] == 0
    assert routed["extra_requests"] is None and routed["servers"] == []
    assert "per worker (router): not known (its metrics were not found)" in err


def test_the_routers_retries_are_its_extra_requests(capsys: pytest.CaptureFixture[str]) -> None:
    """A worker that refuses every request (503) behind the router: the router retries on
    the other, so no answer fails, and its metrics' count beyond one per answer is said
    as its extra requests. The pool (failover, the good server first) never asks the
    refusing one: every request that server saw came from the router."""
    good = run_in_thread(scenario_from_dict(SCRIPT))
    refusing = run_in_thread(
        scenario_from_dict(
            {**SCRIPT, "random_faults": {"rate": 1.0, "pool": [{"kind": "queue_full"}]}}
        )
    )
    try:
        with running_router([good.url, refusing.url], "round_robin") as router:
            given = ["--router", router.url, "--router-metrics", router.metrics_url]
            pool = ",".join(lab.url for lab in (good, refusing))
            code = main(
                ["bench", "--api", "openai", "--pool", pool, "--policy", "failover",
                 "-m", "tachy-lab", "-n", str(N), "--warmup", "1", "--max-tokens", "4",
                 *given, "--json", "-"]
            )  # fmt: skip
    finally:
        for lab in (good, refusing):
            lab.stop()
    assert code == 0
    routed = json.loads(capsys.readouterr().out)[-1]
    assert routed["policy"] == "router (round_robin)" and routed["errors"] == 0
    retried = round(routed["extra_requests"] * N)
    assert 0 < retried <= refusing.server.stats.requests  # (its warm-up's retry too)


def test_router_options_need_a_pool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--router", "http://127.0.0.1:9"]) == 2
    assert "--router is timed beside a pool" in capsys.readouterr().err
    assert main(["bench", "--pool", "a,b", "--router-metrics", "http://127.0.0.1:9"]) == 2
    assert "--router-metrics goes with --router" in capsys.readouterr().err
