"""The local engine's settings: what the parent decides and the child applies.

They cross the process boundary as one JSON argument, so the child needs no other
part of Tachy to know what to build (client/backends/engine/engine_child.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

THREADS_ENV = "TACHY_ENGINE_THREADS"
DEFAULT_CONTEXT = 2048  # tokens per slot: the app's largest prompt budget fits
# Prompt tokens decoded per llama_decode call. llama-server notices a closed connection
# only when it writes the next progress chunk, after a batch, and often it has started
# the next one by then: a Stop frees the CPU one to two batch times later. Nothing
# cuts a batch short (the server sets no abort callback; it polls the socket once a
# second). The batch alone cannot buy both: with flash attention llama.cpp's CPU kernel
# is fast only from 64 prompt tokens a batch (GGML_FA_TILE_Q); below, prompts read at
# 0.75x. Without it the rate hardly depends on the batch, and a q8_0 K cache wins back
# most of the rest (decode is not slower: 38.8 against 35.1 tokens/s). Measured side by
# side on a busy 2-core machine, 1 thread (tests/perf/test_engine_stop.py; ~1,230-token
# prompts, tokens per CPU second against the best, median ms from a Stop to idle):
# this default (32, no flash, q8_0 K) 0.91, 436 ms; flash 64 (f16 K) 0.99, 444-827 ms;
# flash 128 1.00, 541-1,154 ms; 16 0.90, 186 ms. With ~1,850-token prompts: 0.91, 357
# ms; 16: 0.89, 165 ms; 16 with an f16 K cache 0.82. Two threads for prompts on that
# busy machine read at 0.34-0.58x (engine_threads says why). Issue 37 asks a Stop (and a
# cancelled type-ahead read) to leave the engine idle within 250 ms at 0.90x of the rate
# of batch 32: 8 did, 16 did not on a busy machine (tests/perf/test_type_ahead.py, ~1,500
# tokens, medians of 5: 8 0.94x, 168 ms, read 162 ms; 16 0.98x, 631 ms, read 375 ms;
# 32 532 ms, read 657 ms). Speculative drafts are cut to a batch (engine_child.py).
DEFAULT_BATCH = 8
# With speculative decoding a draft must fit one batch, and 7 tokens drafted nothing
# (tests/cli/test_bench.py's ngram-simple run): speculative engines keep the batch of 32
# they had, and with it the slower Stop mid-prefill.
SPEC_BATCH = 32
FLASH_ATTN = False
CACHE_TYPE_K = "q8_0"  # llama.cpp's cache type names: f16, q8_0, ...
DEFAULT_CACHE_RAM_MIB = 256  # host-RAM prompt cache; a 135M model's KV is ~23 KB/token
NO_SLEEP = -1
# Speculative decoding, as `--spec` spells it (client/backends/engine/engine_child.py maps them
# onto llama.cpp's common_speculative_type): guesses from the text so far, or a draft model.
SPEC_NAMES = ("ngram-simple", "ngram-map-k", "ngram-mod", "ngram-cache")
DRAFT_PREFIX = "draft:"


@dataclass(frozen=True)
class EngineSettings:
    threads: int
    batch_threads: int = 0  # threads for reading prompts; 0: as `threads`
    n_ctx: int = DEFAULT_CONTEXT  # per slot
    n_batch: int = DEFAULT_BATCH
    flash_attn: bool = FLASH_ATTN
    cache_type_k: str = CACHE_TYPE_K
    # Two slots: a warm-up (or the next conversation's prefix) never queues behind an
    # answer being written; each slot keeps its own prompt cache.
    n_parallel: int = 2
    cache_ram_mib: int = DEFAULT_CACHE_RAM_MIB
    sleep_idle_s: int = NO_SLEEP  # unload the model after this long idle; -1 never
    spec: str = ""  # speculative decoding, as `tachy serve-local --spec` spells it

    @property
    def batch(self) -> int:
        """Prompt tokens per decode call: the setting's, or SPEC_BATCH with drafts."""
        return max(self.n_batch, SPEC_BATCH) if self.spec else self.n_batch

    @classmethod
    def default(cls) -> EngineSettings:
        return cls(threads=engine_threads())

    def with_changes(self, **changes: object) -> EngineSettings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def total_ctx(self) -> int:
        """The server's n_ctx: it splits its context evenly between the slots."""
        return self.n_ctx * self.n_parallel

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EngineSettings:
        return cls(**json.loads(text))


def engine_threads() -> int:
    """TACHY_ENGINE_THREADS if set, else half the cores this process may use.

    llama.cpp waits at a barrier after every layer, so one preempted thread stalls
    them all. Measured on a busy 2-core machine: 2 threads gave 300-7000 ms between
    tokens, 1 thread a steady ~55 ms. Half the cores also leaves room for Tachy itself
    to receive and paint.
    """
    override = os.environ.get(THREADS_ENV, "")
    if override.isdigit() and int(override) > 0:
        return int(override)
    return max(cpu_count() // 2, 1)


def cpu_count() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not Linux
        return max(os.cpu_count() or 1, 1)


def parse_spec(text: str) -> str:
    """A `--spec` value checked: one of SPEC_NAMES, `draft:PATH.gguf` (an existing
    file), or "" / "off" for none. ValueError with one sentence otherwise."""
    value = text.strip()
    if value in ("", "off", "none"):
        return ""
    if value in SPEC_NAMES:
        return value
    if value.startswith(DRAFT_PREFIX):
        path = Path(value[len(DRAFT_PREFIX) :]).expanduser()
        if not path.is_file():
            raise ValueError(f"there is no draft model file at {path}")
        return f"{DRAFT_PREFIX}{path.resolve()}"
    names = ", ".join(SPEC_NAMES)
    raise ValueError(f"unknown speculative decoding {value!r}: use {names} or draft:PATH.gguf")
