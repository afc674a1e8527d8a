"""One short, non-streamed chat request to an OpenAI-compatible server (`tachy doctor`).

The doctor asks the local engine whether it answers; the HTTP stays here, in backends.
"""

from __future__ import annotations

import httpx

from client.backends.errors import TachyError
from client.backends.reasons import reason_of

PROBE_QUESTION = "Say OK."


class ProbeFailed(TachyError):
    """The server did not give an answer to the probe question."""


def ask_once(openai_url: str, model: str, timeout_s: float, max_tokens: int = 4) -> str:
    """The answer's text to PROBE_QUESTION; ProbeFailed with the reason otherwise."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": PROBE_QUESTION}],
        "max_tokens": max_tokens,
        "stream": False,
    }
    try:
        with httpx.Client(timeout=timeout_s, trust_env=False) as client:
            response = client.post(f"{openai_url}/chat/completions", json=body)
            response.raise_for_status()
            return str(response.json()["choices"][0]["message"]["content"])
    except httpx.TimeoutException as error:
        raise ProbeFailed(f"no answer within {timeout_s:g} s") from error
    except httpx.HTTPStatusError as error:
        raise ProbeFailed(f"no answer: HTTP {error.response.status_code}") from error
    except httpx.HTTPError as error:
        raise ProbeFailed(f"no answer: {reason_of(error)}") from error
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise ProbeFailed("no answer: the reply was not a chat answer") from error


__all__ = ["PROBE_QUESTION", "ProbeFailed", "ask_once"]
