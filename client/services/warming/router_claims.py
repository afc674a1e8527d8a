"""What a warm-up may claim behind a router (vllm-router, SGLang's): the router sends each
request to one of its workers, so a warm-up helps only if the question goes where it
went. The warmer claims the prefix cached and the model warm only when the router's
policy routes by the prompt (cache_aware, consistent_hash ...); for one that spreads
requests (round_robin, random, power_of_two), or one not known, it claims nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from client.backends.base import Backend
from client.backends.kinds.vllm_router.policy import routes_by_prompt, routing_policies
from client.core.conversation import ChatMessage, ChatRequest
from client.core.tools import ToolSpec
from client.services.planning.planner import CachedPrompt


class RouterClaims:
    """KeepAliveWarmer's claims after a warm-up and after a user's request."""

    _backend: Backend | None
    _cached: CachedPrompt | None
    # A router's own metrics address, when given (else found on its host's port 29000):
    # set here, or by server address as the server's settings give them.
    router_metrics_url: str | None = None
    metrics_urls: Callable[[str], str | None] | None = None
    _routes_by_prompt = False  # a router seen routing by the prompt, at the last warm-up

    def _mark_used(self) -> None:
        raise NotImplementedError

    def _unknown(self) -> None:
        raise NotImplementedError

    async def _lands_where_warmed(self) -> bool:
        backend = self._backend
        if backend is None or not backend.kind.hides_worker:
            return True  # one server: the question goes where the warm-up went
        url = getattr(backend, "base_url", "")
        given = self.router_metrics_url or (self.metrics_urls(url) if self.metrics_urls else None)
        policies = await routing_policies(url, given)
        self._routes_by_prompt = routes_by_prompt(policies)
        return self._routes_by_prompt

    async def _claim_warm(self, prefix: ChatRequest) -> None:
        """After a warm-up: the prefix (its messages after its tools) cached and the
        model warm, where that is true."""
        if await self._lands_where_warmed():
            self._cached = CachedPrompt(tuple(prefix.messages), tools=tuple(prefix.tools))
            self._mark_used()
        else:  # the question may go to another worker: nothing is claimed
            self._cached = None
            self._unknown()

    def _cached_after(
        self, prompt: Sequence[ChatMessage], tools: Sequence[ToolSpec]
    ) -> CachedPrompt | None:
        """After a user's answered request: its prompt (sent with `tools`) cached, unless
        a router may send the next one elsewhere."""
        backend = self._backend
        if backend is not None and backend.kind.hides_worker and not self._routes_by_prompt:
            return None
        return CachedPrompt(tuple(prompt), answered=True, tools=tuple(tools))
