"""The request planner: what one message sends, and to whom. Pure: no I/O, no clock.

    plan = plan_request(PlanInput(history, "Why is the sky blue?", settings, routes))
    plan.request()          # the ChatRequest the session streams (plan.route.backend)
    plan.prefix             # what the warmer puts in the server's prompt cache first

Every request is planned here: the session's (ask, regenerate, retry, edit,
continue), the warmer's next prefix (client/ui/warming/warming_controller.py plans the draft being
typed), `tachy chat` and `tachy bench`. Because the warm-up and the request come out of
the same function, the warmed prefix is the start of the next request, message for
message, and the server's prompt cache hits (tests/services/planning/test_planner_prefix.py
checks it byte by byte on the Ollama and OpenAI bodies).

The messages are laid out so that what stays the same from one question to the next
comes first (the cacheable prefix) and what is new comes last:

    [system prompt (+ summary of the history cut)] [history kept by the budget]
    [retrieved passages + the new text] [the partial answer being continued]

Two slots are empty today and filled by later work without changing this layout:
`PlanInput.passages` (knowledge retrieval) is put in the last user message, after the
prefix, so a new retrieval never spoils the cache; `PlanInput.summary` (history
compression) stands for the oldest messages it covers and goes in the system message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from client.backends.base import Backend
from client.core.budget import FittedPrompt, TokenCounter, estimate_tokens, fit_to_budget
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.images import ImagePart
from client.core.tools import ToolSpec
from client.services.planning import router
from client.services.planning.continuation import (
    CONTINUATION_PROMPT,
    ContinueMode,
    continue_mode,
)
from client.services.planning.history_images import all_unseen

PASSAGES_HEAD = (
    "Passages from the user's own documents, numbered. Use them when they answer "
    "the question and cite each one you use as [1], [2] ...; if none answers it, "
    "say so and answer from what you know."
)
# The predicted time to first token for this many prompt tokens the server has not
# seen yet (the TTFT predictor's, with the model's state); None until it has learned.
TtftEstimate = Callable[[int], "float | None"]


@dataclass(frozen=True, slots=True)
class Route:
    """A server and model that can answer; the planner picks one per request."""

    backend: Backend
    model: str
    server_name: str = ""  # as the window names it (stored with each answer)
    is_local: bool = False  # the embedded local engine
    tier: str = ""  # a cascade's "fast" or "strong" (client/services/planning/router.py); "": none


@dataclass(frozen=True, slots=True)
class Passage:
    """A retrieved passage (knowledge retrieval fills these)."""

    source: str  # what the citation names: ~/notes/trip.md:12-30 (or p. 3)
    text: str


@dataclass(frozen=True, slots=True)
class HistorySummary:
    """A summary standing for the oldest `covers` history messages (after the system
    prompt); history compression fills it."""

    text: str
    covers: int


@dataclass(frozen=True, slots=True)
class CachedPrompt:
    """What a server's prompt cache starts with, as far as this client knows: the
    messages of the last request sent (a warm-up's prefix, or a user's prompt) and the
    tools' definitions it carried, which chat templates render before the messages."""

    messages: tuple[ChatMessage, ...] = ()
    answered: bool = False  # the answer the server wrote after them is cached too
    tools: tuple[ToolSpec, ...] = ()  # as sent, in their order

    def shared(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()) -> int:
        """How many leading messages of `messages` (sent with `tools`) the cache holds:
        none when the tools differ (the prompt starts with them), else their longest
        common message prefix (chat templates render each message on its own, so a
        message prefix is a token prefix), plus the answer written after the prompt."""
        if tuple(tools) != self.tools:
            return 0
        count = 0
        for sent, held in zip(messages, self.messages, strict=False):
            if sent != held:
                break
            count += 1
        whole = count == len(self.messages) < len(messages)
        if self.answered and whole and messages[count].role == "assistant":
            count += 1
        return count

    def holds(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()) -> bool:
        """True when the cache starts with all of `messages`, sent with `tools`."""
        return tuple(tools) == self.tools and self.shared(messages, tools) == len(messages)


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """What the user set for every request of a session."""

    system_prompt: str | None = None
    options: GenerationOptions = field(default_factory=GenerationOptions)
    budget: int | None = None  # prompt tokens (client.core.budget.prompt_budget); None: all
    keep_alive: str | int | None = None  # Ollama: how long the model stays loaded
    think: bool | str | None = None  # Ollama's reasoning switch
    # None: the route's backend says whether its server understands the flag.
    continue_final_message: bool | None = None


@dataclass(frozen=True, slots=True)
class PlanInput:
    """Everything a plan is made from."""

    history: Sequence[ChatMessage]  # the conversation before the new text, as stored
    text: str  # the new text: the question (for Continue, the question answered)
    settings: PlanSettings
    routes: Sequence[Route]  # the candidates, preferred first
    history_ids: Sequence[int | None] = ()  # the stored id of each history message
    text_id: int | None = None  # the stored id of the new text, once stored
    continuing: str = ""  # Continue: the partial answer to go on from
    # Continue of an answer with tools: its tool rounds (calls and results) before it.
    continued_steps: Sequence[ChatMessage] = ()
    # The offered tools' definitions, in prompt tokens (services/tools tool_offer.py
    # counts them): every request with tools carries them before the chat, so they take
    # budget room and are read before the first token. 0: no tools.
    tool_tokens: int = 0
    tools: tuple[ToolSpec, ...] = ()  # those definitions, as the request sends them
    passages: Sequence[Passage] = ()
    summary: HistorySummary | None = None
    count: TokenCounter = estimate_tokens
    ttft: TtftEstimate | None = None
    cached: CachedPrompt | None = None  # what the server's prompt cache is known to hold
    # A cascade's decision made before planning (the classifier's, or the user's
    # override); None: the router's rules decide on `text`.
    decision: router.RouteDecision | None = None
    # The route already chosen for this message (the session chooses once, before the
    # turn is stored, and plans with it); None: the plan chooses from `routes`.
    chosen: RouteChoice | None = None
    images: tuple[ImagePart, ...] = ()  # sent with the new text (a model that can see)
    # Whether a route's model can see the history's images (the session's ModelVision);
    # one that cannot gets a note in their place. None: every route can.
    sees: Callable[[Route], bool] | None = None


@dataclass(frozen=True, slots=True)
class RouteChoice:
    """The one route decision of a message: the route, why, and a cascade's decision."""

    route: Route
    why: str
    decision: router.RouteDecision | None = None


@dataclass(frozen=True, slots=True)
class HistoryCut:
    """What the budget left out: the oldest history messages, and where the chat draws
    its "earlier messages not sent" marker."""

    dropped: tuple[ChatMessage, ...] = ()
    first_kept_id: int | None = None  # the stored message just after the cut

    @property
    def count(self) -> int:
        return len(self.dropped)


@dataclass(frozen=True, slots=True)
class RequestPlan:
    route: Route
    why: str  # why this route, in a sentence
    messages: tuple[ChatMessage, ...]  # exactly as sent
    prefix_length: int  # messages[:prefix_length] do not depend on the new text
    options: GenerationOptions
    keep_alive: str | int | None
    think: bool | str | None
    continue_mode: ContinueMode | None  # None: not a Continue
    prompt_tokens: int
    budget: int | None
    cut: HistoryCut
    passages: tuple[Passage, ...]
    summary: HistorySummary | None
    new_prompt_tokens: int  # of prompt_tokens, those not in the server's cache
    predicted_ttft_ms: float | None
    # A cascade's other route: it answers when this one fails before its first token.
    fallback: Route | None = None
    decision: router.RouteDecision | None = None  # a cascade's, as the router gave it
    # What the fallback sends instead of `messages` when it cannot see the history's
    # images and this route can; None: the same messages.
    fallback_messages: tuple[ChatMessage, ...] | None = None
    tools: tuple[ToolSpec, ...] = ()  # the offered tools' definitions, sent with it

    @property
    def prefix(self) -> tuple[ChatMessage, ...]:
        """What the warmer warms: the start of this request the new text does not change."""
        return self.messages[: self.prefix_length]

    @property
    def fitted(self) -> FittedPrompt:
        """The budget's view of it (the window's cut marker and the predictor use it)."""
        return FittedPrompt(
            list(self.messages), self.prompt_tokens, self.budget, dropped=self.cut.count
        )

    def request(self) -> ChatRequest:
        return ChatRequest(
            model=self.route.model,
            messages=list(self.messages),
            options=replace(self.options),  # a copy: a backend may not change the plan
            keep_alive=self.keep_alive,
            think=self.think,
            continue_final_message=self.continue_mode is ContinueMode.CONTINUE_FINAL_MESSAGE,
            tools=self.tools,
        )


def plan_request(given: PlanInput) -> RequestPlan:
    chosen = given.chosen or choose_route(given.routes, given.text, given.decision)
    route, decision = chosen.route, chosen.decision
    mode = _continue_mode(given, route) if given.continuing else None
    head, history, history_ids = _system_head(given)
    sees = given.sees or _every_route_sees
    if not sees(route):  # a text model: the history's images become notes
        history = all_unseen(history)
    asked = given.text or given.passages or given.images
    tail = [_question(given.text, given.passages, given.images)] if asked else []
    tail += given.continued_steps  # what the model already did, as it happened
    if given.continuing:  # counted: it is kept with its question, whatever the budget
        tail.append(ChatMessage("assistant", given.continuing))
    budget, tools = given.settings.budget, given.tool_tokens
    room = max(budget - tools, 0) if budget is not None else None  # the tools come first
    fitted = fit_to_budget([*head, *history, *tail], room, given.count)
    kept = list(fitted.messages)
    dropped = len(history) - (len(kept) - len(head) - len(tail))
    if mode is ContinueMode.PROMPT:  # asked after the fit, as before: not counted
        kept.append(ChatMessage("user", CONTINUATION_PROMPT))
    new_tokens = _not_cached_tokens(kept, given, tools)
    prefix_length = len(head) + len(history) - dropped
    fallback = _fallback(given, route, sees)
    return RequestPlan(
        route=route,
        why=chosen.why,
        messages=tuple(kept),
        prefix_length=prefix_length,
        options=replace(given.settings.options),
        keep_alive=given.settings.keep_alive,
        think=given.settings.think,
        continue_mode=mode,
        prompt_tokens=fitted.prompt_tokens + tools,
        budget=budget,
        cut=_cut(history, [*history_ids, given.text_id], dropped),
        passages=tuple(given.passages),
        summary=given.summary,
        new_prompt_tokens=new_tokens,
        predicted_ttft_ms=given.ttft(new_tokens) if given.ttft is not None else None,
        fallback=fallback,
        decision=decision,
        fallback_messages=_fallback_messages(kept, prefix_length, sees, route, fallback),
        tools=given.tools,
    )


def choose_route(
    routes: Sequence[Route], text: str, decision: router.RouteDecision | None = None
) -> RouteChoice:
    """The route for a message, and why: a cascade's route of the decided tier (the
    router's rules decide on `text` when no decision was made before), else the first
    candidate (the server and model chosen in the window or on the command line)."""
    if not routes:
        raise ValueError("no server and model to send the request to")
    if not is_cascade(routes):
        return RouteChoice(routes[0], "the server and model chosen")
    decision = decision or router.route_by_rules(text)
    route = next((r for r in routes if r.tier == decision.tier.value), routes[0])
    return RouteChoice(route, f"{decision.tier.value}: {decision.reason}", decision)


def is_cascade(routes: Sequence[Route]) -> bool:
    tiers = {route.tier for route in routes}
    return {router.Tier.FAST.value, router.Tier.STRONG.value} <= tiers


def other_route(routes: Sequence[Route], chosen: Route) -> Route | None:
    """A cascade's route of the other tier (the fallback); None without a cascade."""
    if not is_cascade(routes):
        return None
    return next((r for r in routes if r.tier and r.tier != chosen.tier), None)


def _system_head(
    given: PlanInput,
) -> tuple[list[ChatMessage], list[ChatMessage], list[int | None]]:
    """The leading system message(s), with the summary, and the history after them."""
    history = list(given.history)
    ids = list(given.history_ids) or [None] * len(history)
    head: list[ChatMessage] = []
    while history and history[0].role == "system":
        head.append(history.pop(0))
        ids.pop(0)
    if not head and given.settings.system_prompt:
        head = [ChatMessage("system", given.settings.system_prompt)]
    summary = given.summary
    if summary is not None and summary.text:
        covered = min(max(summary.covers, 0), len(history))
        del history[:covered], ids[:covered]
        note = f"Summary of the earlier conversation:\n{summary.text}"
        if head:
            last = head[-1]
            head[-1] = ChatMessage("system", f"{last.content}\n\n{note}")
        else:
            head = [ChatMessage("system", note)]
    return head, history, ids


def _every_route_sees(_route: Route) -> bool:
    return True


def _fallback(given: PlanInput, route: Route, sees: Callable[[Route], bool]) -> Route | None:
    """A cascade's other route, unless it cannot see the question's images."""
    fallback = other_route(given.routes, route)
    if given.images and fallback is not None and not sees(fallback):
        return None  # it would only refuse them, hiding why the first route failed
    return fallback


def _fallback_messages(
    kept: list[ChatMessage],
    prefix_length: int,
    sees: Callable[[Route], bool],
    route: Route,
    fallback: Route | None,
) -> tuple[ChatMessage, ...] | None:
    """A cascade's text fallback behind a route that sees: its history without images."""
    if fallback is None or not sees(route) or sees(fallback):
        return None
    unseen = all_unseen(kept[:prefix_length])
    if unseen == kept[:prefix_length]:
        return None
    return (*unseen, *kept[prefix_length:])


def _cut(history: list[ChatMessage], ids: list[int | None], dropped: int) -> HistoryCut:
    if not dropped:
        return HistoryCut()
    return HistoryCut(tuple(history[:dropped]), ids[dropped] if dropped < len(ids) else None)


def _question(
    text: str, passages: Sequence[Passage], images: tuple[ImagePart, ...] = ()
) -> ChatMessage:
    return ChatMessage("user", question_with_passages(text, passages), images)


def question_with_passages(question: str, passages: Sequence[Passage]) -> str:
    """The user message that carries the passages, each with its source, before the
    question. Put last in the request, it leaves the conversation before it as the
    server's prompt cache holds it."""
    if not passages:
        return question
    blocks = [PASSAGES_HEAD]
    blocks += [f"[{number}] {p.source}\n{p.text}" for number, p in enumerate(passages, 1)]
    blocks.append(f"Question: {question}")
    return "\n\n".join(blocks)


def _continue_mode(given: PlanInput, route: Route) -> ContinueMode:
    supported = given.settings.continue_final_message
    if supported is None:
        supported = route.backend.supports_continue_final_message
    # The local engine is llama-server: known before its first answer shows it.
    trailing = route.is_local or route.backend.continues_trailing_assistant
    return continue_mode(trailing, supported)


def _not_cached_tokens(messages: Sequence[ChatMessage], given: PlanInput, tool_tokens: int) -> int:
    """The prompt tokens the server reads anew. The tools' definitions come before the
    chat: cached when a message of the prompt is (the cached prompt was sent with the
    same tools), else read with the rest."""
    cached = given.cached
    shared = cached.shared(messages, given.tools) if cached is not None else 0
    tools = 0 if shared else tool_tokens
    return tools + sum(given.count(m) for m in messages[shared:])
