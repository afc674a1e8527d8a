"""Type-ahead: the server reads the question while it is typed.

    ahead = TypeAhead(on_change=show)
    if ahead.worth_reading(draft, count_text):  # after a pause in typing, and as it grows
        ahead.read(backend, plan.request(), draft)
    ahead.readiness(draft, count_text)    # "read 412 of 430 tokens"
    ahead.request_started()               # Enter: a read in flight is cancelled at once
    ahead.slot_for(backend, sent_request) # the read's slot, when the read is its start
    ahead.request_finished(metrics)       # -> Saving: what the sent request took from it
    keep_saving(metrics, saving, store, record_id)  # with its figures, stored

A read sends the draft's own plan (`RequestPlan.messages`: the same bytes at the same
place as the request Enter will send, client/services/planning/planner.py) with one
token to generate. Every server kind that keeps a prompt cache then holds the whole
question: llama-server (cache_prompt, on by default), vLLM (automatic prefix caching)
and Ollama (its runner keeps each slot's inputs and reuses the longest common prefix).
The request sent on Enter prefills only what the reads did not cover. On llama-server
the reads run in one slot (READ_SLOT) and the request goes there too (`slot_for`, the
session's slot hint, client/services/chat/turn_steps.py): llama-server holds it until a
read Enter cancelled stops, then finds the whole read in the slot's cache.

A read never delays the real request: `request_started` cancels it, which closes its
connection (ChatStream's finally), so the server drops it at its next batch. Only one
read runs at a time; a newer draft waits for it and is read next.

What it saved is measured, not estimated, from what the servers report: llama-server's
`timings.cache_n`, the OpenAI usage's `prompt_tokens_details.cached_tokens` (vLLM with
`--enable-prompt-tokens-details`), Ollama's `prompt_eval_count` (the tokens it computed:
the reads' counts less the sent request's). The time is those tokens at the rate the
reads were computed at (their own prefill times).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from client.backends.base import Backend
from client.backends.kinds.registry import timings_of
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatRequest
from client.core.events import Failed, Prefill
from client.core.metrics import TYPE_AHEAD_SOURCE, RequestMetrics
from client.core.server_timings import ServerReport
from client.store.metrics_store import MetricsStore
from client.store.settings import Settings

log = logging.getLogger(__name__)

READ_TIMEOUTS = StreamTimeouts(first_byte_s=600.0, stall_s=600.0)
# When the window reads the draft (client/ui/warming/type_ahead_controller.py), and so
# `tachy bench --type-ahead` too: after a pause in typing this long, and this often while
# typing goes on without one (from the first change after the last read).
READ_AFTER_PAUSE_S = 0.4
READ_WHILE_GROWING_S = 1.5
# A read under way when Enter comes costs the request one to two of the server's batches
# (llama-server stops the cancelled read only then: 8 tokens each on the local engine),
# and a person's last words before a pause are a few tokens: reading fewer new tokens
# than this saves less than it risks (a read under way at Enter in 2 rounds of 5, at 1.5
# and 1.8x a short question's TTFT; tests/perf/test_type_ahead.py). The first read of
# a draft is always made.
READ_AT_LEAST_TOKENS = 12
# The reads' llama.cpp slot (`id_slot`), and the sent request's when the last read is
# its start (`slot_for`). Without it llama-server gives the request an idle slot: one
# still reading a read Enter cancelled is busy a batch or two more, so the request
# landed in another slot, without the question (TTFT 313 ms median, 207-479). Pinned,
# it waits for the cancelled read to stop and finds it cached (202-219 ms). Reads used
# to take turns in two slots to leave the request an idle one; pinned, one slot serves:
# each read extends the one before it in place (docs/benchmarks.md, Type-ahead).
READ_SLOT = 0
CACHED_SOURCE = "openai"  # metrics.server[...]: {"cached_tokens": n} from an OpenAI usage


@dataclass(frozen=True, slots=True)
class ReadFigures:
    """What one response says of its prompt (None: the server did not say)."""

    computed: int | None  # prompt tokens the server computed
    cached: int | None  # prompt tokens it took from its cache
    prefill_ms: float | None  # the time it took (the server's, else the client's TTFT)

    @property
    def total(self) -> int | None:
        if self.computed is None or self.cached is None:
            return None
        return self.computed + self.cached


def _values(metrics: RequestMetrics, source: str) -> Mapping[str, float]:
    """The numbers one source of the request's server timings sent, by its own names."""
    timings = metrics.server.get(source)
    return timings.values if timings is not None else {}


def read_figures(metrics: RequestMetrics) -> ReadFigures:
    """The prompt figures of a request, from the server's own counts."""
    llama = _values(metrics, "llamacpp")
    if "prompt_n" in llama:
        cached = int(llama["cache_n"]) if "cache_n" in llama else None
        return ReadFigures(int(llama["prompt_n"]), cached, llama.get("prompt_ms"))
    ollama = _values(metrics, "ollama")
    if "prompt_eval_count" in ollama:
        prefill = ollama.get("prompt_eval_duration_ms", metrics.ttft_ms)
        return ReadFigures(int(ollama["prompt_eval_count"]), None, prefill)
    usage = _values(metrics, CACHED_SOURCE)
    if "cached_tokens" in usage and metrics.prompt_tokens is not None:
        cached = int(usage["cached_tokens"])
        return ReadFigures(max(metrics.prompt_tokens - cached, 0), cached, metrics.ttft_ms)
    return ReadFigures(metrics.prompt_tokens, None, metrics.ttft_ms)


@dataclass(frozen=True, slots=True)
class Readiness:
    """How much of the draft's request the server has read."""

    read: int
    total: int


@dataclass(frozen=True, slots=True)
class Saving:
    """What the sent request took from the reads: prompt tokens, and about how long
    the server would have taken to read them (None: no rate measured)."""

    tokens: int
    saved_ms: float | None


@dataclass(frozen=True, slots=True)
class SentRead:
    """Where the last read went and what it read: the sent request's slot hint."""

    base_url: str
    model: str
    slot: int
    request: ChatRequest

    def starts(self, base_url: str, request: ChatRequest) -> bool:
        """Whether `request` goes to the same server and model and the read's prompt is
        its start: the same messages but the last, whose text begins with the read's
        (the draft read is the question's start), and the same tools."""
        read = self.request
        if base_url != self.base_url or request.model != self.model:
            return False
        if request.tools != read.tools or len(request.messages) != len(read.messages):
            return False
        if not read.messages or read.messages[:-1] != request.messages[:-1]:
            return False
        mine, theirs = read.messages[-1], request.messages[-1]
        same_kind = replace(mine, content="") == replace(theirs, content="")
        return same_kind and bool(mine.content) and theirs.content.startswith(mine.content)


class TypeAhead:
    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.on_change = on_change  # a read progressed, ended or was cancelled
        self.reads_sent = 0  # for tests and the HUD
        self._task: asyncio.Task[None] | None = None
        self._pending: tuple[Backend, ChatRequest, str] | None = None
        self._reads: list[ReadFigures] = []  # of this draft, in order
        self._epoch = 0  # forget() moves it on: a read cancelled by it adds nothing
        self._read_draft: str | None = None  # the draft last read whole
        self._read_tokens = 0  # its request's prompt tokens, as the server counted them
        self._progress: tuple[str, Prefill] | None = None  # a read under way
        self._reading: str | None = None  # its draft
        self._sent: SentRead | None = None  # the last read sent, till the request ends

    # --- reading ----------------------------------------------------------------------
    def read(self, backend: Backend, request: ChatRequest, draft: str) -> None:
        """Have the server read `request` (the draft's plan's, `plan.request()`); after
        the read under way when there is one. Returns at once."""
        draft = draft.strip()
        if not draft or draft == self._read_draft:
            return
        if self._task is not None and not self._task.done():
            if draft != self._reading:  # (the one under way is read once)
                self._pending = (backend, request, draft)
            return
        self._pending, self._reading = None, draft
        self._task = asyncio.get_running_loop().create_task(self._read(backend, request, draft))

    @property
    def reading(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _read(self, backend: Backend, asked: ChatRequest, draft: str) -> None:
        request = replace(asked, options=replace(asked.options, max_tokens=1), slot=READ_SLOT)
        self._sent = SentRead(backend.base_url, asked.model, READ_SLOT, asked)
        self.reads_sent += 1
        epoch, last = self._epoch, None
        try:
            async with backend.chat(request, READ_TIMEOUTS) as stream:
                async for event in stream:
                    if isinstance(event, Prefill):
                        self._progress, last = (draft, event), event
                        self._changed()
        except asyncio.CancelledError:  # Enter: what it read so far counts
            if last is not None and epoch == self._epoch:
                self._reads.append(ReadFigures(last.computed, last.cached, last.time_ms))
            raise
        except Exception as error:  # a read is a nicety: the request reads it anyway
            log.info("type-ahead read failed: %s", error)
        else:
            if isinstance(stream.outcome, Failed):
                log.info("type-ahead read failed: %s", stream.outcome.error)
            else:
                self._note_read(draft, read_figures(stream.metrics()))
        finally:
            self._progress = None
        self._changed()
        self._next()

    def _note_read(self, draft: str, figures: ReadFigures) -> None:
        self._reads.append(figures)
        self._read_draft = draft
        self._read_tokens = figures.total or figures.computed or 0

    def _next(self) -> None:
        pending, self._pending = self._pending, None
        self._task = None  # this read is over (its task is still returning)
        if pending is not None:
            self.read(*pending)

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # a view's bug must not stop reading
                log.exception("type-ahead listener failed")

    def worth_reading(self, draft: str, count_text: Callable[[str], int]) -> bool:
        """Whether the draft holds READ_AT_LEAST_TOKENS the server has not read (or
        nothing of it was read yet)."""
        ready = self.readiness(draft, count_text)
        return ready is None or ready.total - ready.read >= READ_AT_LEAST_TOKENS

    # --- what the composer shows ------------------------------------------------------
    def readiness(self, draft: str, count_text: Callable[[str], int]) -> Readiness | None:
        """The draft's request: tokens the server has read of it, of its total (None:
        nothing read yet). Under way, the server's progress; after, the last read's
        count less the text changed since, counted by `count_text`."""
        draft = draft.strip()
        progress = self._progress
        if progress is not None and progress[0] == draft:
            prefill = progress[1]
            return Readiness(min(prefill.processed, prefill.total), prefill.total)
        if self._read_draft is None or not draft:
            return None
        common = _common_start(self._read_draft, draft)
        read = max(self._read_tokens - _count(count_text, self._read_draft[len(common) :]), 0)
        total = read + _count(count_text, draft[len(common) :])
        return Readiness(min(read, total), total)

    # --- the request sent -------------------------------------------------------------
    def request_started(self) -> None:
        """Enter: a read in flight is cancelled, so the request goes out at once."""
        self._pending = None
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()  # ChatStream closes the response: the connection drops
        self._progress = None

    def slot_for(self, backend: Backend, request: ChatRequest) -> int | None:
        """The slot of the last read when `request` goes to the server and model read
        and the read is its start; else None (llama-server picks an idle slot). Holds
        after Enter cancelled the read, till the request finishes or `forget`."""
        sent = self._sent
        if sent is None or not sent.starts(backend.base_url, request):
            return None
        return sent.slot

    def request_finished(self, metrics: RequestMetrics | None) -> Saving | None:
        """What the sent request took from this draft's reads (None: nothing read, or
        the server reports no counts); then the reads are forgotten."""
        reads, self._reads = self._reads, []
        self._read_draft, self._read_tokens, self._sent = None, 0, None
        if not reads or metrics is None:
            return None
        tokens = _tokens_saved(reads, read_figures(metrics))
        if tokens is None:
            return None
        rate = _ms_per_token(reads)
        return Saving(tokens, rate * tokens if rate is not None else None)

    def forget(self) -> None:
        """Another conversation or server: what was read is not this draft's."""
        self._epoch += 1
        self.request_started()
        self._reads, self._read_draft, self._read_tokens = [], None, 0
        self._sent = None
        self._changed()

    async def aclose(self) -> None:
        task = self._task
        self.request_started()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def note_saving(metrics: RequestMetrics, saving: Saving) -> None:
    """The saving goes with the request's figures (the HUD's waterfall shows it)."""
    values = {"tokens": float(saving.tokens)}
    if saving.saved_ms is not None:
        values["saved_ms"] = float(round(saving.saved_ms))
    kept = [t for t in metrics.server.values() if t.source != TYPE_AHEAD_SOURCE]
    metrics.server = ServerReport([*kept, timings_of(TYPE_AHEAD_SOURCE, values)])


def keep_saving(
    metrics: RequestMetrics, saving: Saving, store: MetricsStore | None, record_id: int | None
) -> None:
    """The saving with the request's figures, live and in its stored row (written before
    the saving was known: AnswerFinished comes after it), so the footer and waterfall of
    a reopened answer show it too."""
    note_saving(metrics, saving)
    if store is not None and record_id is not None:
        store.set_server_timings(record_id, metrics.server)


def _tokens_saved(reads: list[ReadFigures], sent: ReadFigures) -> int | None:
    """llama-server and vLLM: the sent request's cached tokens less what the cache held
    before the first read; Ollama (no cached count): the reads' computed tokens less the
    sent request's."""
    first = reads[0]
    if sent.cached is not None and first.cached is not None:
        return max(sent.cached - first.cached, 0)
    computed = [r.computed for r in reads if r.computed is not None]
    if sent.cached is None and sent.computed is not None and computed:
        return max(sum(computed) - sent.computed, 0)
    return None


def _ms_per_token(reads: list[ReadFigures]) -> float | None:
    """The server's prefill time per token, the median of the reads': a read of a few
    new tokens pays a batch's overhead, so the median says the rate better than a sum."""
    rates = [r.prefill_ms / r.computed for r in reads if r.prefill_ms and r.computed]
    return statistics.median(rates) if rates else None


def settled_part(draft: str) -> str:
    """The draft up to its last whole word, for a read while typing goes on: the word
    being typed may still grow, and a read of part of it ends in tokens the sent
    question will not have (" yell" for " yellow"): the request would read them again.
    A read after a pause takes the whole draft (its last word is likely done)."""
    if not draft or draft[-1].isspace():
        return draft
    cut = max(draft.rfind(" "), draft.rfind("\n"))
    return draft[:cut] if cut > 0 else draft


def rough_count(text: str) -> int:
    """About a text's tokens where no tokenizer is at hand (4 characters a token)."""
    return len(text) // 4 + 1


def _count(count_text: Callable[[str], int], text: str) -> int:
    return count_text(text) if text else 0


def _common_start(a: str, b: str) -> str:
    n = 0
    for mine, theirs in zip(a, b, strict=False):
        if mine != theirs:
            break
        n += 1
    return a[:n]


# --- the setting ---------------------------------------------------------------------
SETTING_KEY = "type_ahead"  # settings: "type_ahead <server>" -> bool; absent: the default


def on_this_machine(base_url: str) -> bool:
    """A server on loopback: reading its drafts costs nobody else's server."""
    host = (urlsplit(base_url).hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def setting_key(base_url: str, is_local: bool) -> str:
    return f"{SETTING_KEY} {'local' if is_local else base_url}"


def type_ahead_on(store: Settings | None, base_url: str, is_local: bool) -> bool:
    """On by default for the local engine and servers on this machine; per server
    otherwise (it costs the server work)."""
    default = is_local or on_this_machine(base_url)
    if store is None:
        return default
    try:
        value = store.get(setting_key(base_url, is_local), default)
    except Exception as error:  # a damaged settings table: the default
        log.warning("reading the type-ahead setting: %s", error)
        return default
    return value if isinstance(value, bool) else default


def set_type_ahead(store: Settings | None, base_url: str, is_local: bool, on: bool) -> None:
    if store is not None:
        store.set(setting_key(base_url, is_local), on)
