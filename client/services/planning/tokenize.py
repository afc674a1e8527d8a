"""Counting prompt tokens with the server's own tokenizer where it has one.

The server is asked through the backend protocol (client.backends.base.Backend
count_tokens: llama.cpp server, so the local engine, and vLLM /tokenize; a remote
llama-cpp-python server /extras/tokenize/count). Ollama and anything else get the
documented estimate of client.core.budget (ceil(chars / 4) + 4 per message), refined by the
characters-per-token ratio the server's tokenizer showed for this conversation when
it has one. A message's images add their estimate by 512 px tiles
(client.core.images.estimate_image_tokens), at the rate the server's first reply to an
image showed once it has answered one (`learn_images`).

The budget and the composer need a count *now* (on every keystroke), so the counter
is a plain callable that answers from a cache; ``prepare()`` fills that cache in the
background with the server's counts.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from client.backends.base import Backend
from client.core.budget import CHARS_PER_TOKEN, TOKENS_PER_MESSAGE
from client.core.conversation import ChatMessage
from client.core.images import (
    TOKENS_PER_TILE,
    ImagePart,
    estimate_image_tokens,
    image_tiles,
    useful_side,
)

log = logging.getLogger(__name__)

CACHE_SIZE = 4096
MIN_TOKENS_PER_TILE = 16  # fewer: the figure was not the images' (not learned)
PARALLEL_REQUESTS = 4


class PromptTokenCounter:
    """counter(message) -> tokens, from the server's tokenizer once prepared."""

    def __init__(self, backend: Backend, model: str) -> None:
        self._backend = backend
        self._model = model
        self._server_counts = False  # the server's tokenizer answered at least once
        self._asked = False
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._chars_seen = 0
        self._tokens_seen = 0
        # An image's prompt tokens per 512 px tile: the lab's rule until the server's
        # first reply to an image showed its own (learn_images).
        self.tokens_per_tile: float = TOKENS_PER_TILE
        self.images_learned = False  # False: an image's tokens are the rule's estimate
        # The longest side the server's encoder can use, learned from its count of an
        # image (client.core.images.useful_side); None: not learned, or nothing to save.
        self.useful_side: int | None = None

    @classmethod
    def for_backend(cls, backend: Backend, model: str) -> PromptTokenCounter:
        return cls(backend, model)

    @property
    def source(self) -> str:
        """ "server" once the server's tokenizer answered, else "estimate"."""
        return "server" if self._server_counts else "estimate"

    # -- the synchronous side: budget and composer ---------------------------
    def __call__(self, message: ChatMessage) -> int:
        images = self.image_tokens(message.images)
        calls = sum(self.count_text(c.name + c.arguments_json()) for c in message.tool_calls)
        return self.count_text(message.content) + TOKENS_PER_MESSAGE + images + calls

    def image_tokens(self, images: Iterable[ImagePart]) -> int:
        """The images' prompt tokens: by tiles, at the server's rate once it showed it."""
        return sum(estimate_image_tokens(i, self.tokens_per_tile) for i in images)

    def counts_for(self, backend: Backend, model: str) -> bool:
        return backend is self._backend and model == self._model

    def learn_images(self, messages: Sequence[ChatMessage], reported: int | None) -> bool:
        """After the first reply to a question with images (only a system prompt before
        it, so no prompt cache hides part of the history), the server's prompt tokens
        less the text's are the images': its tokens per tile from now on. True when
        learned."""
        *before, question = messages or [ChatMessage("system", "")]
        firsts = question.role == "user" and all(m.role == "system" for m in before)
        if not reported or not question.images or not firsts:
            return False
        text = sum(self.count_text(m.content) + TOKENS_PER_MESSAGE for m in messages)
        per_tile = (reported - text) / image_tiles(question.images)
        if per_tile < MIN_TOKENS_PER_TILE:  # not the images' count (a cache, a proxy)
            return False
        self.tokens_per_tile = per_tile
        self.images_learned = True
        if len(question.images) == 1:  # one image's count: what its encoder can use
            self.useful_side = useful_side(reported - text, question.images[0])
        return True

    def count_text(self, text: str) -> int:
        cached = self._counts.get(text)
        if cached is not None:
            return cached
        return self.estimate_text(text)

    def estimate_text(self, text: str) -> int:
        """ceil(chars / ratio): 4 characters per token until the server showed its ratio."""
        ratio = (
            self._chars_seen / self._tokens_seen
            if self._tokens_seen >= 50
            else float(CHARS_PER_TOKEN)
        )
        return math.ceil(len(text) / ratio)

    # -- the asynchronous side: ask the server -------------------------------
    async def prepare(self, messages: Iterable[ChatMessage]) -> None:
        """Fetch the server's counts for texts not yet counted (never raises)."""
        texts = list(dict.fromkeys(m.content for m in messages if m.content not in self._counts))
        if not texts:
            return
        if not self._asked:  # the first answer says whether the server counts at all
            self._asked = True
            await self._count(texts.pop(0))
        if not self._server_counts:
            return
        gate = asyncio.Semaphore(PARALLEL_REQUESTS)

        async def one(text: str) -> None:
            async with gate:
                await self._count(text)

        await asyncio.gather(*(one(t) for t in texts))

    async def _count(self, text: str) -> None:
        count = await self._backend.count_tokens(text, self._model)
        if count is not None:
            self._server_counts = True
            self._remember(text, count)

    async def count_messages(self, messages: list[ChatMessage]) -> int:
        await self.prepare(messages)
        return sum(self(m) for m in messages)

    def _remember(self, text: str, count: int) -> None:
        self._counts[text] = count
        self._counts.move_to_end(text)
        self._chars_seen += len(text)
        self._tokens_seen += count
        while len(self._counts) > CACHE_SIZE:
            old_text, old_count = self._counts.popitem(last=False)
            self._chars_seen -= len(old_text)
            self._tokens_seen -= old_count
