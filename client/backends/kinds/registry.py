"""Every server kind Tachy knows, listed once, and the questions asked of all of them.

Adding a kind: a folder beside these with its `ServerKind`, and one line in KINDS.
The generic kind of each API comes last: a more particular one wins where both match.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from client.backends.figures.snapshot import ServerSnapshot
from client.backends.kinds.kind import ServerKind
from client.backends.kinds.llama_cpp_python import LLAMA_CPP_PYTHON
from client.backends.kinds.llamacpp import LLAMACPP
from client.backends.kinds.ollama import OLLAMA
from client.backends.kinds.openai import OPENAI
from client.backends.kinds.vllm import VLLM
from client.backends.kinds.vllm_router import VLLM_ROUTER
from client.core.server_timings import ServerReport, ServerTimings

KINDS: tuple[ServerKind, ...] = (
    VLLM_ROUTER,
    OLLAMA,
    VLLM,
    LLAMACPP,
    LLAMA_CPP_PYTHON,
    OPENAI,
)

# An OpenAI-compatible stream's chunk key -> the timings type of the kind that sends it.
STREAM_TIMINGS: Mapping[str, type[ServerTimings]] = {
    kind.stream_timings_key: kind.timings
    for kind in KINDS
    if kind.stream_timings_key and kind.timings
}


def kind_named(name: str) -> ServerKind | None:
    return next((kind for kind in KINDS if kind.name == name), None)


def probed_kinds(api: str) -> tuple[ServerKind, ...]:
    """The kinds of this API known by an endpoint of their own, to ask before anything
    such a server may forward (a router's /v1/models, /version, /metrics) is believed."""
    return tuple(kind for kind in KINDS if kind.api == api and kind.probe is not None)


def kind_for_api(api: str) -> ServerKind:
    """What is known of a server from its API alone: that API's generic kind."""
    return next((kind for kind in reversed(KINDS) if kind.api == api), OPENAI)


def kind_by_owner(owners: Iterable[str]) -> ServerKind | None:
    """The kind that /v1/models' owned_by values name, if any."""
    said = set(owners)
    return next((kind for kind in KINDS if said.intersection(kind.owned_by)), None)


def kind_by_header(server: str) -> ServerKind | None:
    """The kind whose `Server` answer header this is, if any."""
    return next((kind for kind in KINDS if server and kind.server_header == server), None)


def kind_by_metrics(text: str) -> ServerKind | None:
    """The kind whose Prometheus names fill this /metrics text, if any."""
    return next(
        (kind for kind in KINDS if kind.metrics_prefix and kind.metrics_prefix in text), None
    )


def no_figures_sentence() -> str:
    names = " or ".join(kind.display_name for kind in KINDS if kind.metrics_prefix)
    return f"This server's /metrics has no {names} figures."


def decode_report(stored: Mapping[str, Mapping[str, float]]) -> ServerReport:
    """A request's server timings from their stored form (ServerReport.encode());
    a kind no longer known keeps its numbers but answers no question."""
    return ServerReport(timings_of(name, values) for name, values in stored.items())


def timings_of(name: str, values: Mapping[str, float]) -> ServerTimings:
    kind = kind_named(name)
    if kind is not None and kind.timings is not None:
        return kind.timings(dict(values))
    return _unknown(name)(dict(values))


@functools.cache
def _unknown(name: str) -> type[ServerTimings]:
    return type(f"UnknownTimings_{name}", (ServerTimings,), {"source": name, "__slots__": ()})


def parse_metrics(
    text: str, model: str | None = None, before: dict[str, float] | None = None
) -> ServerSnapshot:
    """Whichever server wrote this /metrics text, read once (the server view's readers
    go further: rates since the last poll, slots, version)."""
    kind = kind_by_metrics(text)
    if kind is None or kind.metrics_parser is None:
        return ServerSnapshot("", error=no_figures_sentence())
    return kind.metrics_parser(text, model, before)
