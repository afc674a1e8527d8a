"""The local engine's child process: llama.cpp's own server (llama-server), embedded
by the xllamacpp wheel, serving one model until SIGTERM.

    python -m client.backends.engine.engine_child MODEL.gguf ALIAS HOST PORT SETTINGS_JSON

Run by client/backends/engine/local_engine.py, never imported by the app: a crash in the C++
server takes down only this process. xllamacpp.Server starts the HTTP server and the
model's loop on its own threads; this process's main thread only waits for a signal.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

from client.backends.engine.engine_settings import EngineSettings

READY_LINE = "tachy-engine ready"  # written once the server answers, for the log
EXIT_BAD_START = 3
SUPPORTED = '"xllamacpp>=2026.10.11549,<2026.11"'  # as pyproject.toml's `local` extra

# `--spec` names (engine_settings.SPEC_NAMES, and draft:PATH) -> llama.cpp's
# common_speculative_type members.
SPEC_TYPES = {
    "ngram-simple": "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE",
    "ngram-map-k": "COMMON_SPECULATIVE_TYPE_NGRAM_MAP_K",
    "ngram-mod": "COMMON_SPECULATIVE_TYPE_NGRAM_MOD",
    "ngram-cache": "COMMON_SPECULATIVE_TYPE_NGRAM_CACHE",
    "draft": "COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE",
}


FLASH = {True: "LLAMA_FLASH_ATTN_TYPE_ENABLED", False: "LLAMA_FLASH_ATTN_TYPE_DISABLED"}


def build_params(
    xllamacpp: Any, model_path: str, alias: str, host: str, port: int, settings: EngineSettings
) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = model_path
    params.model_alias = {alias}
    params.hostnames = [host]
    params.port = port
    params.n_gpu_layers = 0
    params.n_ctx = settings.total_ctx
    params.n_parallel = settings.n_parallel
    params.n_batch = params.n_ubatch = settings.batch
    params.flash_attn_type = getattr(xllamacpp.llama_flash_attn_type, FLASH[settings.flash_attn])
    params.cache_type_k = getattr(xllamacpp.ggml_type, f"GGML_TYPE_{settings.cache_type_k.upper()}")
    params.cpuparams.n_threads = settings.threads
    params.cpuparams_batch.n_threads = settings.batch_threads or settings.threads
    params.cache_ram_mib = settings.cache_ram_mib
    params.sleep_idle_seconds = settings.sleep_idle_s
    params.endpoint_metrics = True
    params.endpoint_props = True
    params.endpoint_slots = True
    params.ui = False  # no web UI on the engine's port: Tachy is the client
    params.fit_params = False  # CPU only: nothing to fit onto a GPU
    # Continue sends the partial answer as the final assistant message and the engine
    # writes on from its last token (client/services/planning/continuation.py).
    params.prefill_assistant = True
    # llama.cpp's extra weight buffer types put Q4 weights on the AMX kernels wherever
    # the CPU advertises AMX; in virtual machines that advertise it without enabling
    # it (seen: a Firecracker VM on a Xeon) the first prompt crashed with SIGSEGV in
    # ggml_backend_amx_mul_mat. The plain CPU kernels are fine for a small model.
    params.no_extra_bufts = True
    apply_spec(xllamacpp, params, settings.spec)
    return params


def apply_spec(xllamacpp: Any, params: Any, spec: str) -> None:
    """`ngram-mod`, `draft:PATH.gguf`, ... onto params.speculative (empty: none)."""
    if not spec:
        return
    name, _, path = spec.partition(":")
    member = getattr(xllamacpp.common_speculative_type, SPEC_TYPES[name])
    params.speculative.types = [member]
    # The server aborts (GGML_ASSERT "batch must be large enough to hold the sampled and
    # draft tokens") when a draft does not fit one batch: by default ngram-mod drafts up
    # to 64 tokens and ngram-simple / ngram-map-k up to 48, more than the default batch.
    most = params.n_batch - 1
    spec_params = params.speculative
    mod = spec_params.ngram_mod
    mod.n_max = min(mod.n_max, most)
    mod.n_min = min(mod.n_min, mod.n_max)
    for ngram in (spec_params.ngram_simple, spec_params.ngram_map_k, spec_params.ngram_map_k4v):
        ngram.size_m = min(ngram.size_m, most)
    if name == "draft":
        draft = params.speculative.draft
        draft.mparams.path = path
        draft.n_gpu_layers = 0
        draft.cpuparams.n_threads = params.cpuparams.n_threads
        draft.cpuparams_batch.n_threads = params.cpuparams.n_threads


def main(argv: list[str]) -> int:
    model_path, alias, host, port, settings_json = argv
    settings = EngineSettings.from_json(settings_json)
    stop = threading.Event()
    import xllamacpp  # after argv is read: a bad call fails fast

    try:
        params = build_params(xllamacpp, model_path, alias, host, int(port), settings)
    except AttributeError as error:  # its settings change names from month to month
        print(
            f"tachy-engine: xllamacpp {xllamacpp.__version__} is not a version Tachy "
            f"supports ({error}); install {SUPPORTED}",
            file=sys.stderr,
            flush=True,
        )
        return EXIT_BAD_START
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as error:  # the reason is in the lines llama.cpp logged above
        print(f"tachy-engine: {error}", file=sys.stderr, flush=True)
        return EXIT_BAD_START
    # The server installs C handlers for SIGINT/SIGTERM that only end its loop; take
    # them back so this thread wakes up, ends the server and exits.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"{READY_LINE} {server.listening_address}", file=sys.stderr, flush=True)
    while not stop.wait(1.0):
        pass
    del server  # ends the loop after the batch under way, joins its thread
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
