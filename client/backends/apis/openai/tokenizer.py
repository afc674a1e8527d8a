"""Asking an OpenAI-compatible server to count tokens with its own tokenizer.

- llama.cpp server: POST /tokenize {"content": text} -> {"tokens": [...]}
- vLLM:             POST /tokenize {"model", "prompt"} -> {"count", "tokens", ...}
  (one request body carries both spellings: each server ignores the other's keys)
- llama-cpp-python (the local engine): POST /extras/tokenize/count {"input"} -> {"count"}
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

log = logging.getLogger(__name__)

TOKENIZE_TIMEOUT_S = 5.0
TOKENIZE_PATHS = ("/tokenize", "/extras/tokenize/count")
PROBE_TEXT = "hello world"


class ServerTokenizer:
    """Finds the server's tokenize endpoint on first use, then counts with it."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, headers: dict[str, str]):
        self._client = client
        self._base_url = base_url
        self._headers = headers
        self._probed = False
        self._path: str | None = None

    async def count(self, text: str, model: str) -> int | None:
        if not self._probed:
            self._probed = True
            self._path = await self._find_path(model)
            log.debug("tokenizer for %s: %s", self._base_url, self._path or "none")
        if self._path is None:
            return None
        return await self._ask(self._path, text, model)

    async def _find_path(self, model: str) -> str | None:
        for path in TOKENIZE_PATHS:
            if await self._ask(path, PROBE_TEXT, model) is not None:
                return path
        return None

    async def _ask(self, path: str, text: str, model: str) -> int | None:
        body: dict[str, Any]
        if path == "/tokenize":
            body = {"content": text, "add_special": False, "model": model, "prompt": text}
            body["add_special_tokens"] = False
        else:
            body = {"input": text, "model": model}
        try:
            response = await self._client.post(
                f"{self._base_url}{path}",
                json=body,
                headers=self._headers,
                timeout=TOKENIZE_TIMEOUT_S,
            )
            if response.status_code != 200:
                return None
            return count_from(response.json())
        except (httpx.HTTPError, ValueError):
            return None


def count_from(answer: Any) -> int | None:
    if not isinstance(answer, dict):
        return None
    count = answer.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    tokens = answer.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None
