"""Prompt tokens as the servers count them: the messages rendered by the model's chat
template (client/lab/text/chat_template.py), SmolLM2's by default. The counts are vLLM 0.32's
for SmolLM2-135M-Instruct (tests/lab/fixtures/vllm_0_32.json; issue 28's 34)."""

from __future__ import annotations

import random

import pytest

from client.lab.scenarios.scenario import ScenarioError, scenario_from_dict
from client.lab.text.chat_template import GENERATION_PROMPT, chat_prompt_tokens, with_images
from client.lab.text.corpus import pick_tokens, tokenize
from tests.lab.conftest import StartLab

SYSTEM_MESSAGE = 21  # <|im_start|>system\n, SmolLM2's 16-token system prompt, <|im_end|>\n
TWO_PLUS_TWO = [{"role": "user", "content": "What is 2+2?"}]


def count(messages: list[tuple[str, str]], system_prompt_tokens: int = 16) -> int:
    return len(chat_prompt_tokens(messages, system_prompt_tokens))


def test_smollm2s_counts_for_a_question() -> None:
    assert count([("user", "What is 2+2?")]) == 37  # vLLM's usage.prompt_tokens
    assert count([("user", "Name three colours.")]) == 34
    # The question's own: <|im_start|>user\n (3), 7 tokens, <|im_end|>\n (2); then the
    # generation prompt <|im_start|>ass istant\n (4).
    assert count([("user", "What is 2+2?")], system_prompt_tokens=0) == 12 + 4


def test_a_conversation_with_its_own_system_message_gets_no_other() -> None:
    own = [("system", "Be brief."), ("user", "Hi")]
    assert count(own) == count(own, system_prompt_tokens=0) == (3 + 3 + 2) + (3 + 1 + 2) + 4
    later = [("user", "Hi"), ("system", "Be brief.")]  # only a first system message counts
    assert count(later) == SYSTEM_MESSAGE + count(later, system_prompt_tokens=0)


def test_each_message_costs_its_template_and_role() -> None:
    one = count([("user", "Hi")], 0)
    assert count([("user", "Hi"), ("assistant", "Hi"), ("user", "Hi")], 0) == one + 7 + 6
    assert GENERATION_PROMPT == ("<|im_start|>", "ass", "istant", "\n")


def test_a_longer_or_no_default_system_prompt() -> None:
    base = count([("user", "Hi")], 0)
    assert count([("user", "Hi")], 40) == base + 5 + 40
    longer, usual = (
        chat_prompt_tokens([("user", "Hi")], 40),
        chat_prompt_tokens([("user", "Hi")], 16),
    )
    assert longer[3:19] == usual[3:19] and longer[19:22] == usual[3:6]  # SmolLM2's, again


def test_images_go_before_the_generation_prompt() -> None:
    prompt = chat_prompt_tokens([("user", "Hi")])
    seen = with_images(prompt, ("<image>",) * 3)
    assert seen[-5:] == ("<image>", *GENERATION_PROMPT) and len(seen) == len(prompt) + 3


def test_digits_are_tokens_of_their_own_and_a_reply_has_no_blank_token(tmp_path) -> None:
    assert tokenize("What is 2+2?") == ["What", " is", " ", "2", "+", "2", "?"]
    assert len(tokenize("It costs 1234 dollars.")) == 9  # SmolLM2 counts 9 too
    text = tmp_path / "numbers.txt"
    text.write_text("Call 555 0199 at 9 am.", encoding="utf-8")
    tokens = pick_tokens(random.Random(1), 30, "english", str(text))
    assert all(token.strip() for token in tokens)
    assert " 5" in tokens and "5" in tokens  # the space rides with the next digit


def test_the_dial_must_not_be_negative() -> None:
    assert scenario_from_dict({}).system_prompt_tokens == 16
    with pytest.raises(ScenarioError, match="system_prompt_tokens"):
        scenario_from_dict({"system_prompt_tokens": -1})


async def test_every_api_counts_the_template(start_lab: StartLab) -> None:
    for server in ("vllm", "llamacpp"):
        _, client = await start_lab(server=server)
        body = {"model": "tachy-lab", "messages": TWO_PLUS_TWO}
        reply = (await client.post("/v1/chat/completions", json=body)).json()
        assert reply["usage"]["prompt_tokens"] == 37, server
        if server == "llamacpp":  # llama-server speaks no Ollama API (issue 39, item 17)
            assert (await client.post("/api/chat", json=body)).status_code == 404
            continue
        ollama = (await client.post("/api/chat", json={**body, "stream": False})).json()
        assert ollama["prompt_eval_count"] == 37
        generate = {"model": "tachy-lab", "prompt": "What is 2+2?", "stream": False}
        assert (await client.post("/api/generate", json=generate)).json()["prompt_eval_count"] == 37


async def test_each_model_says_whether_its_template_has_a_system_prompt(
    start_lab: StartLab,
) -> None:
    models = {"smollm2": {}, "plain": {"system_prompt_tokens": 0}}
    _, client = await start_lab(models=models)
    counts = {}
    for name in models:
        body = {"model": name, "messages": TWO_PLUS_TWO}
        counts[name] = (await client.post("/v1/chat/completions", json=body)).json()["usage"]
    assert counts["smollm2"]["prompt_tokens"] == 37 and counts["plain"]["prompt_tokens"] == 16
