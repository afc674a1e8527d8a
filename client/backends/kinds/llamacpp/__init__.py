"""llama.cpp's server (and the local engine): kind, body, timings, /metrics /slots /props.
May import: client.core, client.backends.figures, client.backends.kinds (kind, openai body).
"""

from __future__ import annotations

from client.backends.kinds.kind import ServerKind
from client.backends.kinds.llamacpp.body import chat_body
from client.backends.kinds.llamacpp.metrics import PREFIX, LlamacppFigures, parse_metrics
from client.backends.kinds.llamacpp.timings import KIND_NAME, LlamacppTimings

LLAMACPP = ServerKind(
    name=KIND_NAME,
    display_name="llama.cpp",
    api="openai",
    body=chat_body,
    timings=LlamacppTimings,
    stream_timings_key="timings",  # on the last chunk
    owned_by=("llamacpp",),
    server_header="llama.cpp",  # the `Server` header of every answer
    metrics_prefix=PREFIX,
    figures_reader=LlamacppFigures,
    figures_not_given=frozenset({"ttft_p50_ms", "recent_ttft_p50_ms"}),  # no TTFT histogram
    metrics_parser=parse_metrics,
    # llama-server continues a final assistant message unless started with
    # --no-prefill-assistant (which no /props field shows).
    continues_trailing_assistant=True,
    keeps_models_loaded_as="The llama.cpp server",
)
