"""A server's load as least-loaded reads it: vLLM's running + waiting, llama.cpp's busy
slots and deferred requests, Ollama's model loaded or not; nothing said is None."""

from __future__ import annotations

from client.backends.kinds.vllm.metrics import parse_vllm_metrics
from client.services.hud.server_load import COLD_LOAD, queue_of
from client.services.hud.server_stats import LoadedModel, ServerSnapshot

VLLM = """# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3.0
vllm:num_requests_waiting{model_name="m"} 2.0
"""


def test_each_servers_queue() -> None:
    assert queue_of(parse_vllm_metrics(VLLM), "m") == 5.0
    slots = ServerSnapshot("llamacpp", running=1.0, waiting=1.0, busy_slots=2)
    assert queue_of(slots, None) == 3.0
    ollama = ServerSnapshot("ollama", models=[LoadedModel("llama3.2:latest")])
    assert queue_of(ollama, "llama3.2") == 0.0
    assert queue_of(ollama, "qwen3") == COLD_LOAD
    assert queue_of(ServerSnapshot("", error="No server figures."), "m") is None
    assert queue_of(ServerSnapshot("llamacpp"), None) is None
