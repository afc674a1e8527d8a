"""The engine child's llama.cpp parameters, built without starting a server."""

from __future__ import annotations

import pytest

from client.backends.engine.engine_child import apply_spec, build_params
from client.backends.engine.engine_settings import SPEC_NAMES, EngineSettings

xllamacpp = pytest.importorskip("xllamacpp")


@pytest.mark.parametrize("spec", SPEC_NAMES)
def test_every_guessed_draft_fits_one_batch(spec: str) -> None:
    """llama-server aborts when a draft does not fit one batch (seen: ngram-simple's 48
    against a batch of 32)."""
    params = xllamacpp.CommonParams()
    params.n_batch = EngineSettings.default().n_batch
    apply_spec(xllamacpp, params, spec)
    drafts = params.speculative
    longest = max(
        drafts.ngram_mod.n_max,
        drafts.ngram_simple.size_m,
        drafts.ngram_map_k.size_m,
        drafts.ngram_map_k4v.size_m,
    )
    assert longest < params.n_batch


def test_the_default_reads_prompts_without_flash_attention_and_a_q8_k_cache() -> None:
    params = build_params(xllamacpp, "m.gguf", "m", "127.0.0.1", 1, EngineSettings(threads=1))
    assert params.flash_attn_type == xllamacpp.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
    assert params.cache_type_k == xllamacpp.ggml_type.GGML_TYPE_Q8_0
    assert params.n_ubatch == params.n_batch == EngineSettings(threads=1).n_batch


def test_the_engine_continues_a_final_assistant_message() -> None:
    params = build_params(xllamacpp, "m.gguf", "m", "127.0.0.1", 1, EngineSettings(threads=1))
    assert params.prefill_assistant is True  # what Continue on the local engine relies on
