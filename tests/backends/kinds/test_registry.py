"""The kinds' registry: one line per kind, and what every kind must hold to be listed."""

from __future__ import annotations

from client.backends.kinds.llamacpp import LLAMACPP
from client.backends.kinds.llamacpp.timings import LlamacppTimings
from client.backends.kinds.ollama import OLLAMA
from client.backends.kinds.openai import OPENAI
from client.backends.kinds.registry import (
    KINDS,
    STREAM_TIMINGS,
    decode_report,
    kind_by_header,
    kind_by_metrics,
    kind_by_owner,
    kind_for_api,
    kind_named,
    parse_metrics,
    timings_of,
)
from client.backends.kinds.vllm import VLLM
from client.backends.kinds.vllm.timings import VllmTimings
from client.core.conversation import ChatMessage, ChatRequest
from client.core.server_timings import ServerReport


def test_every_kind_has_its_own_name_an_api_and_a_body() -> None:
    assert len({kind.name for kind in KINDS}) == len(KINDS)
    request = ChatRequest("m", [ChatMessage("user", "hi")])
    for kind in KINDS:
        assert kind.api in ("ollama", "openai") and kind.display_name
        assert kind.body(request)["model"] == "m"
        assert kind_named(kind.name) is kind
        if kind.timings is not None:
            assert kind.timings.source == kind.name  # stored under the kind's name


def test_each_api_starts_as_its_generic_kind() -> None:
    assert kind_for_api("ollama") is OLLAMA and kind_for_api("openai") is OPENAI


def test_a_server_shows_its_kind_by_header_owner_or_metrics() -> None:
    assert kind_by_header("llama.cpp") is LLAMACPP and kind_by_header("nginx") is None
    assert kind_by_owner({"vllm"}) is VLLM and kind_by_owner({"openai"}) is None
    assert kind_by_metrics("vllm:num_requests_running 1") is VLLM
    assert kind_by_metrics("llamacpp:requests_processing 0") is LLAMACPP
    assert "vLLM or llama.cpp" in parse_metrics("go_gc 1").error


def test_only_llama_cpp_asks_for_prompt_progress() -> None:
    request = ChatRequest("m", [ChatMessage("user", "hi")])
    asking = {kind.name for kind in KINDS if kind.body(request).get("return_progress")}
    assert asking == {LLAMACPP.name}


def test_an_openai_stream_knows_each_kinds_timings_key() -> None:
    assert STREAM_TIMINGS == {"timings": LlamacppTimings, "metrics": VllmTimings}


def test_stored_timings_read_back_as_the_kinds_types() -> None:
    report = ServerReport(
        [timings_of("llamacpp", {"prompt_n": 4, "predicted_n": 9, "prompt_ms": 20.0})]
    )
    again = decode_report(report.encode())
    assert again == report and isinstance(again["llamacpp"], LlamacppTimings)
    assert (again.output_tokens(), again.prompt_tokens(), again.prompt_ms()) == (9, 4, 20.0)
    unknown = decode_report({"someday": {"x": 1.0}})
    assert unknown.encode() == {"someday": {"x": 1.0}} and unknown.output_tokens() is None
