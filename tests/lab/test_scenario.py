"""Scenario files, presets, distributions and seeded reproducibility."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest

from client.lab import PRESETS, Distribution, ScenarioError, load_scenario, scenario_from_dict
from client.lab.text.corpus import pick_tokens, tokenize
from client.lab.timing.plan import make_plan
from tests.lab.conftest import chat_body

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def test_toml_file_with_base_preset_and_tables(tmp_path: Path) -> None:
    (tmp_path / "answer.txt").write_text("Hello from a file.", encoding="utf-8")
    path = tmp_path / "demo.toml"
    path.write_text(
        'base = "typing"\nseed = 7\ntpot_ms = 25\ntext_file = "answer.txt"\n'
        '[ttft]\nkind = "lognormal"\np50_ms = 600\np95_ms = 800\n'
        '[fault]\nkind = "stall"\nafter_tokens = 10\nseconds = 5\n'
        '[random_faults]\nrate = 0.2\npool = [{ kind = "reset", after_tokens = 5 }]\n',
        encoding="utf-8",
    )
    scenario = load_scenario(path)
    assert scenario.name == "demo" and scenario.seed == 7 and scenario.tpot_ms == 25
    assert scenario.ttft == Distribution("lognormal", 600, 800)
    assert (
        scenario.fault is not None
        and scenario.fault.kind == "stall"
        and scenario.fault.seconds == 5
    )
    assert scenario.fault_rate == 0.2 and scenario.random_faults[0].kind == "reset"
    assert scenario.text_file == str(tmp_path / "answer.txt")
    assert scenario.jitter_ms == PRESETS["typing"].jitter_ms  # kept from the base
    tokens = pick_tokens(random.Random(0), 3, scenario.corpus, scenario.text_file)
    assert "".join(tokens).strip() in "Hello from a file. Hello from a file."


def test_json_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"ttft": 50, "corpus": "chinese", "fault": "reset"}))
    scenario = load_scenario(path)
    assert scenario.ttft == Distribution("fixed", 50.0) and scenario.corpus == "chinese"
    assert scenario.fault is not None and scenario.fault.kind == "reset"


@pytest.mark.parametrize("data", [
    {"ttfb": 3}, {"ttft": {"kind": "gamma", "p50_ms": 3}}, {"fault": {"kind": "explode"}},
    {"random_faults": {"rate": 2, "pool": []}}, {"corpus": "klingon"}, {"base": "nope"},
    {"tokens_per_chunk": 0}, {"fault": {"kind": "stall", "after": 3}}, {"keep_alive": "soon"},
])  # fmt: skip
def test_bad_scenarios_say_what_is_wrong(data: dict) -> None:
    with pytest.raises(ScenarioError):
        scenario_from_dict(data)


def test_unknown_name_and_broken_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="neither a preset"):
        load_scenario("nope")
    broken = tmp_path / "b.toml"
    broken.write_text("ttft = [")
    with pytest.raises(ScenarioError, match=r"b\.toml"):
        load_scenario(broken)


def test_example_scenario_files_load() -> None:
    files = sorted(RESOURCES.glob("*.toml"))
    assert files
    for path in files:
        load_scenario(path)


@pytest.mark.parametrize(("name", "low", "high"), [
    ("instant", 0, 100), ("fast", 100, 300), ("typing", 300, 1000), ("slow", 1000, 1e9),
])  # fmt: skip
def test_tier_presets_always_land_in_their_tier(name: str, low: float, high: float) -> None:
    scenario = PRESETS[name]
    assert scenario.start_loaded and scenario.load_ms == 0
    rng = random.Random(3)
    samples = [scenario.ttft.sample_ms(rng) for _ in range(2000)]
    assert low <= min(samples) and max(samples) < high


def test_distributions_hit_their_p50_and_p95() -> None:
    rng = random.Random(5)
    for kind in ("normal", "lognormal"):
        dist = Distribution(kind, 200, 300)
        samples = sorted(dist.sample_ms(rng) for _ in range(20000))
        assert statistics.median(samples) == pytest.approx(200, rel=0.03)
        assert samples[int(0.95 * len(samples))] == pytest.approx(300, rel=0.04)


def test_plans_are_reproducible_from_the_seed() -> None:
    scenario = scenario_from_dict({"ttft": {"kind": "lognormal", "p50_ms": 100, "p95_ms": 200},
                                   "jitter_ms": 3, "reasoning_tokens": 4})  # fmt: skip
    first = make_plan(scenario, random.Random("7"), True, None)
    again = make_plan(scenario, random.Random("7"), True, None)
    other = make_plan(scenario, random.Random("8"), True, None)
    assert first == again and first != other
    assert [p.kind for p in first.pieces[:5]] == ["thinking"] * 4 + ["answer"]
    assert list(first.offsets) == sorted(first.offsets)


def test_max_tokens_is_the_reply_length() -> None:
    assert scenario_from_dict({"max_tokens": 5}).output_tokens == 5


def test_tokens_per_chunk_groups_tokens() -> None:
    scenario = scenario_from_dict({"tokens_per_chunk": 3, "output_tokens": 10})
    plan = make_plan(scenario, random.Random(1), False, None)
    assert [p.tokens for p in plan.pieces] == [3, 3, 3, 1]


def test_tokenizer_keeps_every_character() -> None:
    text = "Hello, world! 你好,世界。 It's 3.5x faster\n"
    assert "".join(tokenize(text)) == text
    assert tokenize("你好") == ["你", "好"]


async def test_same_seed_same_reply_over_http(start_lab) -> None:
    replies = []
    for _ in range(2):
        _, client = await start_lab(seed=42, ttft={"kind": "normal", "p50_ms": 5, "p95_ms": 9})
        bodies = [
            (await client.post("/api/chat", json=chat_body(stream=False))).json() for _ in range(3)
        ]
        replies.append([b["message"]["content"] for b in bodies])
    assert replies[0] == replies[1] and len(set(replies[0])) > 1
    _, client = await start_lab(seed=42)
    seeded = [
        (await client.post("/api/chat", json=chat_body(stream=False, options={"seed": 9}))).json()
        for _ in range(2)
    ]
    assert seeded[0]["message"]["content"] == seeded[1]["message"]["content"]


async def test_chinese_corpus(start_lab) -> None:
    _, client = await start_lab(corpus="chinese")
    body = (await client.post("/api/chat", json=chat_body(stream=False))).json()
    assert any("\u4e00" <= ch <= "\u9fff" for ch in body["message"]["content"])


def test_bursty_holds_the_steady_tokens_back_to_each_burst() -> None:
    steady = make_plan(PRESETS["steady"], random.Random(1), False, None)
    bursty = make_plan(PRESETS["bursty"], random.Random(1), False, None)
    assert steady.ttft_s == bursty.ttft_s
    assert steady.offsets[0] == bursty.offsets[0] == 0.0  # the first token is not held
    assert steady.offsets[-1] == pytest.approx(bursty.offsets[-1])  # the same mean rate
    assert sorted(set(bursty.offsets)) == pytest.approx([0.0, 3.0, 6.0, 9.0, 12.0])
    held = [b - s for s, b in zip(steady.offsets, bursty.offsets, strict=True)]
    assert min(held) >= -1e-9 and max(held) < 3.0  # never early, never a burst late
    with pytest.raises(ScenarioError):
        scenario_from_dict({"burst_ms": -1})
