"""vLLM: its kind, per-request timings (usage chunk `metrics`) and /metrics figures.
May import: client.core, client.backends.figures, client.backends.kinds (kind, openai body).
"""

from __future__ import annotations

from client.backends.kinds.kind import ServerKind
from client.backends.kinds.openai.body import chat_body
from client.backends.kinds.vllm.metrics import PREFIX, VllmFigures, parse_vllm_metrics
from client.backends.kinds.vllm.timings import KIND_NAME, VllmTimings

VLLM = ServerKind(
    name=KIND_NAME,
    display_name="vLLM",
    api="openai",
    body=chat_body,
    timings=VllmTimings,
    stream_timings_key="metrics",  # with --enable-per-request-metrics, on the usage chunk
    owned_by=("vllm",),
    metrics_prefix=PREFIX,
    figures_reader=VllmFigures,
    figures_not_given=frozenset({"busy_slots"}),
    metrics_parser=parse_vllm_metrics,
    continues_final_message_flag=True,  # continue_final_message + add_generation_prompt
    keeps_models_loaded_as="vLLM",
)
