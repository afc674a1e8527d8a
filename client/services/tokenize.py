"""Counting prompt tokens with the server's own tokenizer where it has one.

- llama.cpp server: POST /tokenize {"content": text} -> {"tokens": [...]}
- vLLM:             POST /tokenize {"model", "prompt"} -> {"count", "tokens", ...}
  (one request body carries both spellings: each server ignores the other's keys)
- llama-cpp-python (the local engine): POST /extras/tokenize/count {"input"} -> {"count"}
- Ollama and anything else: the documented estimate of client.core.budget
  (ceil(chars / 4) + 4 per message), refined by the characters-per-token ratio the
  server's tokenizer showed for this conversation when it has one.

The budget and the composer need a count *now* (on every keystroke), so the counter
is a plain callable that answers from a cache; ``prepare()`` fills that cache in the
background with the server's counts.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import httpx

from client.core.budget import CHARS_PER_TOKEN, TOKENS_PER_MESSAGE
from client.core.conversation import ChatMessage

log = logging.getLogger(__name__)

TOKENIZE_TIMEOUT_S = 5.0
CACHE_SIZE = 4096
PARALLEL_REQUESTS = 4


class PromptTokenCounter:
    """counter(message) -> tokens, from the server's tokenizer once prepared."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        model: str,
        api: str = "openai",
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api = api
        self._endpoint: str | None = None
        self._probed = api == "ollama"  # Ollama has no tokenize endpoint
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._chars_seen = 0
        self._tokens_seen = 0

    @classmethod
    def for_backend(cls, backend: Any, model: str) -> PromptTokenCounter:
        """For a backend from client.backends (it has .client, .base_url and .api)."""
        return cls(backend.client, backend.base_url, model, backend.api)

    @property
    def source(self) -> str:
        """ "server" once the server's tokenizer answered, else "estimate"."""
        return "server" if self._endpoint else "estimate"

    # -- the synchronous side: budget and composer ---------------------------
    def __call__(self, message: ChatMessage) -> int:
        return self.count_text(message.content) + TOKENS_PER_MESSAGE

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
        if not texts or not await self._ensure_endpoint():
            return
        gate = asyncio.Semaphore(PARALLEL_REQUESTS)

        async def one(text: str) -> None:
            async with gate:
                count = await self._server_count(text)
            if count is not None:
                self._remember(text, count)

        await asyncio.gather(*(one(t) for t in texts))

    async def count_messages(self, messages: list[ChatMessage]) -> int:
        await self.prepare(messages)
        return sum(self(m) for m in messages)

    async def _ensure_endpoint(self) -> bool:
        if not self._probed:
            self._probed = True
            self._endpoint = await self._find_endpoint()
            log.debug("tokenizer for %s: %s", self._base_url, self._endpoint or "estimate")
        return self._endpoint is not None

    async def _find_endpoint(self) -> str | None:
        for path in ("/tokenize", "/extras/tokenize/count"):
            count = await self._ask(path, "hello world")
            if count is not None:
                self._endpoint = path
                return path
        return None

    async def _server_count(self, text: str) -> int | None:
        if self._endpoint is None:
            return None
        return await self._ask(self._endpoint, text)

    async def _ask(self, path: str, text: str) -> int | None:
        body: dict[str, Any]
        if path == "/tokenize":
            body = {"content": text, "add_special": False, "model": self._model, "prompt": text}
            body["add_special_tokens"] = False
        else:
            body = {"input": text, "model": self._model}
        try:
            response = await self._client.post(
                f"{self._base_url}{path}", json=body, timeout=TOKENIZE_TIMEOUT_S
            )
            if response.status_code != 200:
                return None
            return _count_from(response.json())
        except (httpx.HTTPError, ValueError):
            return None

    def _remember(self, text: str, count: int) -> None:
        self._counts[text] = count
        self._counts.move_to_end(text)
        self._chars_seen += len(text)
        self._tokens_seen += count
        while len(self._counts) > CACHE_SIZE:
            old_text, old_count = self._counts.popitem(last=False)
            self._chars_seen -= len(old_text)
            self._tokens_seen -= old_count


def _count_from(answer: Any) -> int | None:
    if not isinstance(answer, dict):
        return None
    count = answer.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    tokens = answer.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None
