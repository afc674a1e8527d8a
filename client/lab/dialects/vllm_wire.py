"""What vLLM 0.32 adds to its OpenAI-compatible replies, as recorded from a real one
(tests/lab/fixtures/vllm_0_32.json): the build's fingerprint, the per-request `metrics`
of --enable-per-request-metrics, the null fields of a whole reply, and its 400s for a
request that cannot fit the context.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from client.lab.timing.plan import Reply

VERSION = "0.32.0"
JSON = "application/json"  # as FastAPI sends it: no charset
# vLLM's is "vllm-VERSION-" and eight hex digits of its build; the lab's are fixed.
FINGERPRINT = f"vllm-{VERSION}-7ac4ba1e"

# A whole reply's fields that vLLM 0.32 sends as null when nothing fills them.
MESSAGE_NULLS = ("refusal", "annotations", "audio", "function_call")
CHOICE_NULLS = ("token_ids", "routed_experts")
REPLY_NULLS = ("prompt_logprobs", "prompt_token_ids", "prompt_text", "kv_transfer_params",
               "ec_transfer_params")  # fmt: skip


def request_metrics(reply: Reply, end: float, whole: bool = False) -> dict[str, Any]:
    """--enable-per-request-metrics: milliseconds from the request's arrival.

    mean_itl_ms is the generation time over the gaps between the counted tokens, and
    tokens_per_second the completion tokens over the whole request (first-token wait
    included), as vLLM computes them."""
    first = reply.first_token_at if reply.first_token_at is not None else end
    last = reply.last_token_at if reply.last_token_at is not None else first
    ttft_ms = (first - reply.arrival) * 1000.0
    generation_ms = (last - first) * 1000.0
    gaps = max(reply.output_tokens - 1, 1)
    whole_s = max(last - reply.arrival, 1e-9)
    metrics: dict[str, Any] = {
        "time_to_first_token_ms": ttft_ms,
        "generation_time_ms": generation_ms,
        "queue_time_ms": reply.queue_s * 1000.0,
        "mean_itl_ms": generation_ms / gaps,
        "tokens_per_second": reply.output_tokens / whole_s,
    }
    if whole:
        metrics["speculative_decoding"] = None
    return metrics


def too_long(prompt_tokens: int, max_tokens: int | None, context: int) -> tuple[str, str] | None:
    """vLLM's 400 (message, param) for a request that cannot fit the model's context."""
    if max_tokens is not None and max_tokens > context:
        return (
            f"max_tokens={max_tokens} cannot be greater than max_model_len={context}. "
            f"Please request fewer output tokens. (parameter=max_tokens, value={max_tokens})",
            "max_tokens",
        )
    if prompt_tokens > context:
        counted = context + 1  # vLLM stops counting one past the limit
        return (
            f"This model's maximum context length is {context} tokens. However, your prompt "
            f"contains at least {counted} input tokens, which exceeds this limit even without "
            f"any output tokens. Please reduce the length of the input prompt. "
            f"(parameter=input_tokens, value={counted})",
            "input_tokens",
        )
    return None


def json_response(text: str, status: int = 200) -> web.Response:
    """A JSON reply with vLLM's Content-Type (aiohttp would add "; charset=utf-8")."""
    return web.Response(status=status, body=text.encode(), headers={"Content-Type": JSON})
