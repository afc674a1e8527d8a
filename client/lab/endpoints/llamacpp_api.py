"""llama.cpp server's own endpoints (tools/server/README.md): /slots, /props, its
/v1/models shape and its /metrics names. Served when the scenario says
server = "llamacpp"; a vLLM-flavoured lab answers 404 there, as vLLM does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from client.lab.dialects.llamacpp_wire import BUILD_INFO, loading_response
from client.lab.dialects.wire import dumps
from client.lab.running.state import LabState

CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def routes(lab: LabState) -> list[web.RouteDef]:
    async def slots(request: web.Request) -> web.Response:
        if lab.scenario.server != "llamacpp":
            return _not_found()
        busy = lab.scheduler.running
        count = _slot_count(lab)
        if request.query.get("fail_on_no_slot") == "1" and busy >= count:
            return _error(503, "no slot available", "unavailable_error")
        return _json([_slot(lab, i, i < busy) for i in range(count)])

    async def props(request: web.Request) -> web.Response:
        if lab.scenario.server != "llamacpp":
            return _not_found()
        return _json(
            {
                "default_generation_settings": _slot(lab, 0, False),
                "total_slots": _slot_count(lab),
                "model_path": f"/models/{lab.scenario.model.replace(':', '-')}.gguf",
                "chat_template": CHAT_TEMPLATE,
                "chat_template_caps": {},
                "modalities": {"vision": lab.scenario.served()[0].vision, "audio": False},
                "build_info": BUILD_INFO,
                "is_sleeping": False,
            }
        )

    return [web.get("/slots", slots), web.get("/props", props)]


def _slot_count(lab: LabState) -> int:
    return lab.scenario.capacity or 1


def _slot(lab: LabState, index: int, busy: bool) -> dict[str, Any]:
    return {
        "id": index,
        "id_task": index if busy else -1,
        "n_ctx": lab.scenario.context_length,
        "speculative": lab.scenario.spec_acceptance is not None,
        "is_processing": busy,
        "params": _params(lab),
        "next_token": {
            "has_next_token": busy,
            "has_new_line": False,
            "n_remain": -1,
            "n_decoded": 0,
        },
    }


def _params(lab: LabState) -> dict[str, Any]:
    return {
        "n_predict": -1,
        "seed": 4294967295,
        "temperature": 0.800000011920929,
        "top_k": 40,
        "top_p": 0.949999988079071,
        "min_p": 0.05000000074505806,
        "typical_p": 1.0,
        "repeat_last_n": 64,
        "repeat_penalty": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "max_tokens": -1,
        "n_keep": 0,
        "n_discard": 0,
        "ignore_eos": False,
        "stream": True,
        "n_probs": 0,
        "min_keep": 0,
        "samplers": ["penalties", "dry", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"],
        "speculative.n_max": 16,
        "speculative.n_min": 0,
        "speculative.p_min": 0.75,
        "timings_per_token": False,
    }


def health_response(lab: LabState) -> web.Response:
    """503 while the model loads (a cold-start scenario's first request), else ok."""
    now = asyncio.get_running_loop().time()
    loading = any(m.ready_at > now for m in lab.models.running(now))
    if loading:
        return loading_response()
    return _json({"status": "ok"})


def models_response(lab: LabState, names: list[str]) -> web.Response:
    data = [
        {
            "id": name,
            "object": "model",
            "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
            "created": lab.started_wall,
            "owned_by": "llamacpp",
            "meta": {
                "vocab_type": 2,
                "n_vocab": 49152,
                "n_ctx_train": lab.scenario.context_length,
                "n_embd": 2048,
                "n_params": 1_711_376_384,
                "size": 1_055_609_824,
            },
        }
        for name in names
    ]
    return _json({"object": "list", "data": data})


def render_metrics(lab: LabState) -> str:
    """Prometheus text as llama-server prints it with --metrics (no labels)."""
    m = lab.metrics
    prompt_rate = m.prompt_tokens_total / m.prompt_seconds_total if m.prompt_seconds_total else 0.0
    predicted_rate = (
        m.predicted_tokens_total / m.predicted_seconds_total if m.predicted_seconds_total else 0.0
    )
    busy_per_decode = m.busy_slots_sum / m.decode_total if m.decode_total else 0.0
    rows = [
        ("prompt_tokens_total", "counter", "Number of prompt tokens processed.",
         m.prompt_tokens_total),
        ("prompt_seconds_total", "counter", "Prompt process time", m.prompt_seconds_total),
        ("tokens_predicted_total", "counter", "Number of generation tokens processed.",
         m.predicted_tokens_total),
        ("tokens_predicted_seconds_total", "counter", "Predict process time",
         m.predicted_seconds_total),
        ("n_decode_total", "counter", "Total number of llama_decode() calls", m.decode_total),
        ("n_tokens_max", "counter", "Largest observed n_tokens.", m.tokens_max),
        ("n_busy_slots_per_decode", "counter", "Average number of busy slots per decode call",
         busy_per_decode),
        ("prompt_tokens_seconds", "gauge", "Average prompt throughput in tokens/s.", prompt_rate),
        ("predicted_tokens_seconds", "gauge", "Average generation throughput in tokens/s.",
         predicted_rate),
        ("requests_processing", "gauge", "Number of requests processing.", lab.scheduler.running),
        ("requests_deferred", "gauge", "Number of requests deferred.", lab.scheduler.waiting),
        ("spec_decode_num_draft_tokens_total", "counter", "Total draft tokens generated.",
         m.draft_tokens),
        ("spec_decode_num_accepted_tokens_total", "counter", "Total draft tokens accepted.",
         m.accepted_tokens),
        ("spec_decode_num_drafts_total", "counter", "Total speculative decoding steps.",
         m.draft_tokens // 16),
    ]  # fmt: skip
    lines: list[str] = []
    for name, kind, help_text, value in rows:
        lines += [
            f"# HELP llamacpp:{name} {help_text}",
            f"# TYPE llamacpp:{name} {kind}",
            f"llamacpp:{name} {_number(value)}",
        ]
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _json(obj: Any) -> web.Response:
    return web.Response(text=dumps(obj), content_type="application/json")


def _error(status: int, message: str, kind: str) -> web.Response:
    body = {"error": {"code": status, "message": message, "type": kind}}
    return web.Response(status=status, text=dumps(body), content_type="application/json")


def _not_found() -> web.Response:
    return web.Response(status=404, text='{"detail":"Not Found"}', content_type="application/json")
