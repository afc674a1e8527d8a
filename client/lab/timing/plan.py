"""One reply, planned before the first byte: its chunks and the deadline of each.

Deadlines are absolute (loop.time() seconds) and computed from the request's arrival,
so a late wake-up never shifts the tokens after it: jitter does not accumulate.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace

from client.lab.scenarios.scenario import Fault, Scenario
from client.lab.text.corpus import pick_tokens


@dataclass(frozen=True, slots=True)
class Piece:
    """What one chunk on the wire carries."""

    kind: str  # "answer" | "thinking"
    text: str
    tokens: int
    finish: str | None = None  # on the last piece of a reply cut by max_tokens: "length"


@dataclass(slots=True)
class Reply:
    """Everything a protocol writer needs to say about one reply."""

    model: str
    prompt_tokens: int
    arrival: float
    load_s: float = 0.0
    fault: Fault | None = None
    loaded_at: float | None = None  # admitted and loaded: prefill starts here
    queue_s: float = 0.0  # waited for a place in the running batch
    cache_tokens: int = 0  # prompt tokens reused from the prompt cache (llama.cpp)
    prompt_ids: tuple[int, ...] = ()  # what Ollama's /api/generate returns as context
    finish_reason: str = "stop"
    first_token_at: float | None = None
    last_token_at: float | None = None
    output_tokens: int = 0
    chunks: int = 0
    gaps: list[float] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)

    def record(self, piece: Piece, at: float) -> None:
        if self.first_token_at is None:
            self.first_token_at = at
        elif self.last_token_at is not None:
            self.gaps.append(at - self.last_token_at)
        self.last_token_at = at
        self.output_tokens += piece.tokens
        self.chunks += 1
        (self.thinking if piece.kind == "thinking" else self.text).append(piece.text)


@dataclass(frozen=True, slots=True)
class Plan:
    """Chunks and their deadlines (seconds after the start of decoding's first chunk)."""

    ttft_s: float
    pieces: tuple[Piece, ...]
    offsets: tuple[float, ...]
    finish_reason: str


def make_plan(
    scenario: Scenario,
    rng: random.Random,
    want_thinking: bool,
    max_tokens: int | None,
    continues: str = "",
) -> Plan:
    """The reply's pieces and deadlines; `continues`: the partial answer it goes on from."""
    answer_count = scenario.output_tokens
    if scenario.output_tokens_min is not None:
        answer_count = rng.randint(scenario.output_tokens_min, scenario.output_tokens)
    finish = "stop"
    if max_tokens is not None and max_tokens >= 0:
        if max_tokens < answer_count:
            answer_count, finish = max_tokens, "length"
    thinking_count = scenario.reasoning_tokens if want_thinking else 0
    text_file = scenario.text_file
    thinking = pick_tokens(rng, thinking_count, scenario.corpus, text_file, reasoning=True)
    answer = pick_tokens(rng, answer_count, scenario.corpus, text_file, after=continues)
    pieces = _chunks("thinking", thinking, scenario.tokens_per_chunk)
    pieces += _chunks("answer", answer, scenario.tokens_per_chunk)
    if finish == "length" and pieces:  # vLLM says so on the last token's chunk
        pieces[-1] = replace(pieces[-1], finish=finish)
    elif scenario.end_token_counted:  # the end-of-sequence token, counted like the others
        pieces.append(Piece("answer", "", 1, finish="stop"))
    ttft_s = scenario.ttft.sample_ms(rng) / 1000.0
    step = scenario.tpot_ms * scenario.tokens_per_chunk / 1000.0
    jitter = scenario.jitter_ms / 1000.0
    offsets = []
    previous = 0.0
    for index in range(len(pieces)):
        offset = index * step
        if jitter and index:
            offset += rng.gauss(0.0, jitter)
        previous = max(previous, offset)  # jitter may bunch chunks, never reorder them
        offsets.append(previous)
    if scenario.burst_ms > 0:
        offsets = _in_bursts(offsets, scenario.burst_ms / 1000.0)
    return Plan(ttft_s, tuple(pieces), tuple(offsets), finish)


def _in_bursts(offsets: list[float], burst_s: float) -> list[float]:
    """Each chunk held until the next burst (the first goes at once, so TTFT stays)."""
    return [0.0] + [math.ceil(o / burst_s - 1e-6) * burst_s for o in offsets[1:]]


def _chunks(kind: str, tokens: list[str], per_chunk: int) -> list[Piece]:
    return [
        Piece(kind, "".join(tokens[i : i + per_chunk]), len(tokens[i : i + per_chunk]))
        for i in range(0, len(tokens), per_chunk)
    ]
