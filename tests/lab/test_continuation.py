"""The lab's words (issue 39, item 17): an answer starts where a sentence of its corpus
starts, never mid-sentence (". At sunset…"), and a continuation goes on from the text
it was given ("explains one idea at" -> " a time, …"), on each API the way its server
continues: Ollama and llama-server a final assistant message, vLLM when asked by
continue_final_message."""

from __future__ import annotations

import random

import pytest

from client.lab.text.corpus import ENGLISH, pick_tokens
from tests.lab.conftest import StartLab

PARTIAL = "Light reaches us quickly. A good answer arrives quickly, explains one idea at"
GOES_ON = " a time, and"  # 4 tokens


def test_every_answer_starts_where_a_sentence_does() -> None:
    sentences = [s.strip() for s in ENGLISH.split(". ")]
    for seed in range(40):
        text = "".join(pick_tokens(random.Random(seed), 6, "english"))
        assert any(s.startswith(text.rstrip(".")) for s in sentences), text
        assert text[0].isupper(), text


def test_a_continuation_follows_its_text_and_one_it_cannot_place_starts_a_sentence() -> None:
    text = "".join(pick_tokens(random.Random(3), 4, "english", after=PARTIAL))
    assert text == GOES_ON
    spaced = "".join(pick_tokens(random.Random(3), 4, "english", after=PARTIAL + " "))
    assert spaced == GOES_ON.lstrip()  # the space was already written
    unknown = "".join(pick_tokens(random.Random(3), 4, "english", after="Quarks and gluons"))
    assert unknown.startswith(" ") and unknown[1].isupper()  # a new sentence, spaced


def _continuing(**extra: object) -> dict[str, object]:
    return {
        "model": "tachy-lab",
        "messages": [
            {"role": "user", "content": "Why is the sky blue?"},
            {"role": "assistant", "content": PARTIAL},
        ],
        "max_tokens": 4,
        **extra,
    }


@pytest.mark.parametrize("server", ["llamacpp", "vllm"])
async def test_the_openai_side_continues_as_its_server_does(
    start_lab: StartLab, server: str
) -> None:
    _, client = await start_lab(server=server, output_tokens=20)
    flag = {"continue_final_message": True, "add_generation_prompt": False}
    body = _continuing(**(flag if server == "vllm" else {}))
    answer = (await client.post("/v1/chat/completions", json=body)).json()
    assert answer["choices"][0]["message"]["content"] == GOES_ON
    if server == "vllm":  # without the flag vLLM starts a new message: a new sentence
        fresh = (await client.post("/v1/chat/completions", json=_continuing())).json()
        assert fresh["choices"][0]["message"]["content"][0].isupper()


async def test_ollama_continues_a_final_assistant_message(start_lab: StartLab) -> None:
    _, client = await start_lab(output_tokens=20)
    body = {**_continuing(), "stream": False, "options": {"num_predict": 4}}
    answer = (await client.post("/api/chat", json=body)).json()
    assert answer["message"]["content"] == GOES_ON
