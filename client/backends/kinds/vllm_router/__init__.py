"""A router (vllm-router, SGLang's): known by /list_workers, named by its workers' count.
May import: client.core, client.backends.figures, client.backends.kinds (kind, openai body).
"""

from __future__ import annotations

from client.backends.kinds.kind import KindProbe, ServerKind
from client.backends.kinds.openai.body import chat_body
from client.backends.kinds.vllm_router.figures import RouterFigures
from client.backends.kinds.vllm_router.timings import KIND_NAME, RouterMark
from client.backends.kinds.vllm_router.workers import DISPLAY_NAME, router_name

VLLM_ROUTER = ServerKind(
    name=KIND_NAME,
    display_name=DISPLAY_NAME,
    api="openai",
    body=chat_body,  # as sent: the workers' own flags are theirs to take or refuse
    probe=KindProbe("/list_workers", router_name),
    figures_path="/workers",
    figures_reader=RouterFigures,
    hides_worker=True,
    timings=RouterMark,  # added to each answer's timings (its stored figures say "router")
    figures_not_given=frozenset(
        {
            "waiting",
            "kv_cache_use",
            "ttft_p50_ms",
            "recent_ttft_p50_ms",
            "spec_acceptance",
            "prompt_tokens_per_s",
            "decode_tokens_per_s",
            "cache_hit_rate",
            "busy_slots",
        }
    ),  # its workers' are forwarded
)
