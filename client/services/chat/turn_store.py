"""Storing the messages of one turn, and reading the context that answers it.

Each function here runs on the database's worker thread (one `db.run` call, one
transaction) before the request is sent, so a turn costs one hop off the loop. The
context is the conversation's active path, as the user sees it; what of it is sent
(system prompt, budget) is client.services.planning.planner's decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from client.core.conversation import ChatMessage, Role
from client.core.images import Attachment, ImagePart
from client.services.tools.tool_history import answer_messages, answer_steps, rounds_of
from client.store.conversations.history import HistoryStore, MessageState, StoredMessage
from client.store.conversations.images import ImageStore
from client.store.conversations.tool_calls import StoredToolCall, ToolCallStore

if TYPE_CHECKING:
    from client.services.planning.planner import Route

TITLE_CHARS = 60


@dataclass(slots=True)
class Turn:
    """The stored messages of one request and the context to send."""

    conversation_id: int
    user_message_id: int | None
    assistant_message_id: int
    context: list[ChatMessage]  # the stored conversation, up to the question
    context_ids: list[int | None]  # the stored message of each
    prior_text: str = ""  # Continue: the text already in the message
    prior_thinking: str = ""
    prior_state: MessageState | None = None  # Continue: the state before it resumed
    origin: Origin | None = None  # who the answer was stored as written by (None: Continue)
    # Continue of an answer with tools: its tool rounds as the model saw them, the words
    # after the last one (what the model goes on from) and how many rounds there were.
    prior_steps: tuple[ChatMessage, ...] = ()
    prior_tail: str | None = None  # None: the whole prior_text
    prior_rounds: int = 0

    @property
    def continuing(self) -> str:
        """The partial answer the model continues (after its last tool round)."""
        return self.prior_text if self.prior_tail is None else self.prior_tail

    @property
    def _asks(self) -> bool:
        return bool(self.context) and self.context[-1].role == "user"

    @property
    def history(self) -> list[ChatMessage]:
        """The messages before the question."""
        return self.context[:-1] if self._asks else self.context

    @property
    def history_ids(self) -> list[int | None]:
        return self.context_ids[: len(self.history)]

    @property
    def question(self) -> str:
        """The question's text ("": none stored, a bare Continue: nothing new)."""
        return self.context[-1].content if self._asks else ""

    @property
    def question_images(self) -> tuple[ImagePart, ...]:
        """The images sent with the question (none for a bare Continue)."""
        return self.context[-1].images if self._asks else ()


@dataclass(frozen=True, slots=True)
class Origin:
    """Who answers: written on the assistant message and the conversation."""

    server: str
    model: str
    route: str = ""  # a cascade's "fast" or "strong"


def title_for(question: str) -> str:
    first_line = question.strip().splitlines()[0] if question.strip() else ""
    if len(first_line) <= TITLE_CHARS:
        return first_line
    return first_line[: TITLE_CHARS - 1].rstrip() + "…"


def context_of(
    path: list[StoredMessage],
    images: Mapping[int, tuple[ImagePart, ...]] | None = None,
    tools: Mapping[int, Sequence[StoredToolCall]] | None = None,
) -> tuple[list[ChatMessage], list[int | None]]:
    """Stored messages as the model sees them (with each one's images, as sent; an
    answer with tool calls as its rounds of calls and results: services/tools/
    tool_history.py), and the stored id of each. Empty messages (an answer that failed
    before any text) are left out."""
    images, tools = images or {}, tools or {}
    messages: list[ChatMessage] = []
    ids: list[int | None] = []
    for m in path:
        if m.id in tools:
            laid_out = answer_messages(m.content, tools[m.id])
        elif m.content or m.id in images:
            laid_out = [ChatMessage(cast(Role, m.role), m.content, images.get(m.id, ()))]
        else:
            continue
        messages += laid_out
        ids += [m.id] * len(laid_out)
    return messages, ids


def read_context(
    history: HistoryStore, path: list[StoredMessage]
) -> tuple[list[ChatMessage], list[int | None]]:
    """context_of with the images of the path's questions and the tool calls of its
    answers read from the store."""
    questions = [m.id for m in path if m.role == "user"]
    images = ImageStore(history.db).sent_images(questions) if questions else {}
    answers = [m.id for m in path if m.role == "assistant"]
    tools = ToolCallStore(history.db).for_messages(answers) if answers else {}
    return context_of(path, images, tools)


def ask(
    history: HistoryStore,
    conversation_id: int | None,
    question: str,
    system: str | None,
    origin: Origin,
    images: Sequence[Attachment] = (),
) -> Turn:
    """A new question at the end of the shown conversation (a new one when None), with
    the images attached to it (stored with it, originals kept)."""
    with history.db.transaction():
        path: list[StoredMessage] = []
        if conversation_id is None:
            conversation = history.create_conversation(
                title_for(question), server=origin.server, model=origin.model
            )
            conversation_id = conversation.id
        else:
            path = history.active_path(conversation_id)
        if not path and system:
            path = [history.add_message(conversation_id, "system", system)]
        parent_id = path[-1].id if path else None
        user = history.add_message(conversation_id, "user", question, parent_id=parent_id)
        ImageStore(history.db).add(user.id, images)
        assistant = _add_answer(history, user, origin)
        # The question goes on as it was typed; only the history is read back.
        context, context_ids = read_context(history, path)
        asked = ChatMessage("user", question, tuple(image.sent for image in images))
        if question or images:  # (as context_of keeps a message)
            context, context_ids = [*context, asked], [*context_ids, user.id]
        return Turn(conversation_id, user.id, assistant.id, context, context_ids, origin=origin)


def question_alone(
    history: HistoryStore, conversation_id: int | None, question: str, system: str | None
) -> StoredMessage:
    """A new question with no answer yet (a race's columns each add theirs with
    `answer_to`): at the end of the shown conversation, or a new one when None."""
    with history.db.transaction():
        path: list[StoredMessage] = []
        if conversation_id is None:
            conversation_id = history.create_conversation(title_for(question)).id
        else:
            path = history.active_path(conversation_id)
        if not path and system:
            path = [history.add_message(conversation_id, "system", system)]
        parent_id = path[-1].id if path else None
        return history.add_message(conversation_id, "user", question, parent_id=parent_id)


def answer_to(history: HistoryStore, user_message_id: int, origin: Origin) -> Turn:
    """One more answer to a stored question, as a version beside the others."""
    with history.db.transaction():
        return _answer_under(history, _message(history, user_message_id, "user"), origin)


def answer_again(history: HistoryStore, assistant_message_id: int, origin: Origin) -> Turn:
    """A new answer beside an existing one (regenerate, retry); the old one is kept."""
    with history.db.transaction():
        old = _message(history, assistant_message_id, "assistant")
        if old.parent_id is None:
            raise ValueError(f"message {assistant_message_id} answers no question")
        user = _message(history, old.parent_id, "user")
        return _answer_under(history, user, origin)


def edit_question(
    history: HistoryStore, user_message_id: int, new_text: str, origin: Origin
) -> Turn:
    """The edited question as a new branch beside the old one (both stay: the question
    shows ‹1/2›), and its answer. Editing the first question retitles the conversation."""
    with history.db.transaction():
        old = _message(history, user_message_id, "user")
        before = first_question(history.active_path(old.conversation_id))
        user = history.add_message(old.conversation_id, "user", new_text, parent_id=old.parent_id)
        images = ImageStore(history.db)
        images.copy(old.id, user.id)  # the edited question keeps its images
        assistant = _add_answer(history, user, origin)
        path = history.active_path(user.conversation_id)
        # The question goes on as it was typed (as Ask's); only the history is read back.
        context, context_ids = read_context(history, path[: [m.id for m in path].index(user.id)])
        kept = images.sent_images([user.id]).get(user.id, ())
        if new_text or kept:  # (as context_of keeps a message)
            asked = ChatMessage("user", new_text, kept)
            context, context_ids = [*context, asked], [*context_ids, user.id]
        follow_first_question(history, old.conversation_id, before)
        return Turn(
            user.conversation_id, user.id, assistant.id, context, context_ids, origin=origin
        )


def show_version(history: HistoryStore, message_id: int) -> bool:
    """Show this version of a question or an answer (and the branch under it); True
    when the conversation's title changed with its first question."""
    with history.db.transaction():
        message = history.get_message(message_id)
        if message is None:
            raise KeyError(f"no message {message_id}")
        before = first_question(history.active_path(message.conversation_id))
        history.set_active(message_id)
        return follow_first_question(history, message.conversation_id, before)


def first_question(path: list[StoredMessage]) -> str:
    return next((m.content for m in path if m.role == "user"), "")


def follow_first_question(history: HistoryStore, conversation_id: int, before: str) -> bool:
    """Title the conversation after its first question as it now stands, when its title
    was the one `before` (the first question until now) gave it: a title the user
    chose is kept. True when the title changed."""
    conversation = history.get_conversation(conversation_id)
    now = title_for(first_question(history.active_path(conversation_id)))
    if conversation is None or not now or conversation.title != title_for(before):
        return False
    if now == conversation.title:
        return False
    history.rename(conversation_id, now)
    return True


def resume(history: HistoryStore, assistant_message_id: int) -> Turn:
    """Continue a stopped or interrupted answer: it streams again into the same message."""
    with history.db.transaction():
        message = _message(history, assistant_message_id, "assistant")
        history.set_active(message.id)
        history.set_state(message.id, MessageState.STREAMING, "")
        path = history.active_path(message.conversation_id)
        before = path[: [m.id for m in path].index(message.id)]
        context, context_ids = read_context(history, before)
        calls = ToolCallStore(history.db).for_message(message.id)
        steps, tail = answer_steps(message.content, calls) if calls else ([], None)
        return Turn(
            conversation_id=message.conversation_id,
            user_message_id=message.parent_id,
            assistant_message_id=message.id,
            context=context,
            context_ids=context_ids,
            prior_text=message.content,
            prior_thinking=message.thinking,
            prior_state=message.state,
            prior_steps=tuple(steps),
            prior_tail=tail,
            prior_rounds=rounds_of(calls),
        )


def _add_answer(history: HistoryStore, user: StoredMessage, origin: Origin) -> StoredMessage:
    return history.add_message(
        user.conversation_id,
        "assistant",
        "",
        parent_id=user.id,
        state=MessageState.STREAMING,
        server=origin.server or None,
        model=origin.model,
        route=origin.route or None,
    )


def _answer_under(history: HistoryStore, user: StoredMessage, origin: Origin) -> Turn:
    assistant = _add_answer(history, user, origin)
    path = history.active_path(user.conversation_id)
    context, context_ids = read_context(history, path[:-1])
    return Turn(user.conversation_id, user.id, assistant.id, context, context_ids, origin=origin)


def origin_of(route: Route) -> Origin:
    """Who answers, as stored with the answer: the route its plan uses."""
    return Origin(route.server_name, route.model, route.tier)


def name_fallback(history: HistoryStore, message_id: int, route: Route) -> None:
    """The answer's second attempt answered (a cascade's other model after the first
    failed before its first token): named on the answer as its writer. The first
    attempt stays in the request's stages (client/services/cascade/route_record.py)."""
    origin = origin_of(route)
    history.set_answerer(message_id, origin.server or None, origin.model, origin.route or None)


POOL_ROUTE = "pool"  # stored as an answer's route: a server of a pool wrote it


def name_pool_server(history: HistoryStore, message_id: int, server: str, model: str) -> None:
    """A pool's answer is named by the server of the pool that gave it."""
    history.set_answerer(message_id, server, model, POOL_ROUTE)


def _message(history: HistoryStore, message_id: int, role: str) -> StoredMessage:
    message = history.get_message(message_id)
    if message is None:
        raise KeyError(f"no message {message_id}")
    if message.role != role:
        raise ValueError(f"message {message_id} is a {message.role} message, not {role}")
    return message
