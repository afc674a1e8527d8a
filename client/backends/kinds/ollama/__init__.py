"""Ollama's kind: its name, request body, typed timings and /api/ps figures.
May import: client.core, client.backends.figures, client.backends.kinds.kind,
client.backends.tool_wire.
"""

from __future__ import annotations

from client.backends.kinds.kind import ServerKind
from client.backends.kinds.ollama.body import chat_body
from client.backends.kinds.ollama.figures import KIND_NAME, OllamaFigures
from client.backends.kinds.ollama.timings import OllamaTimings

OLLAMA = ServerKind(
    name=KIND_NAME,
    display_name="Ollama",
    api="ollama",
    body=chat_body,
    timings=OllamaTimings,
    figures_path="/api/ps",
    figures_reader=OllamaFigures,
    lists_loaded_models=True,  # its loaded models are the view's table, not counts
    figures_not_given=frozenset(
        {
            "running",
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
    ),
    # template/template.go renders a final assistant message unclosed (a legacy
    # template is cut after {{ .Response }}): the model writes on from its last token.
    continues_trailing_assistant=True,
)
