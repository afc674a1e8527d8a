"""Export a conversation's active path to Markdown or JSON, with each message's
latency metrics (the request_metrics rows with its message_id).

Model text goes into Markdown as it is (it is Markdown); an answer's tool calls go
between its words where they were made, their arguments and results in code fences
(never read as Markdown); JSON escapes everything.
Nothing here reads the keyring, so an API key cannot end up in an export. Reads a
whole conversation: the ui calls it through `await db.run(...)`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from client.core.images import Attachment
from client.store.conversations.history import HistoryStore, MessageState, StoredMessage
from client.store.conversations.images import ImageStore
from client.store.conversations.tool_calls import StoredToolCall, ToolCallStore
from client.store.metrics_store import MetricsRecord, MetricsStore

EXPORT_FORMAT_VERSION = 1


def iso_time(unix_s: float | None) -> str | None:
    """ISO 8601 in UTC, as the HUD's exports write it: 2026-12-03T00:15:04.123+00:00."""
    if unix_s is None:
        return None
    return datetime.fromtimestamp(unix_s, UTC).isoformat(timespec="milliseconds")


def _load(
    history: HistoryStore, metrics: MetricsStore, conversation_id: int
) -> tuple[Any, list[StoredMessage], dict[int, list[MetricsRecord]]]:
    conversation = history.get_conversation(conversation_id)
    if conversation is None:
        raise KeyError(f"no conversation {conversation_id}")
    path = history.active_path(conversation_id)
    return conversation, path, metrics.for_messages(m.id for m in path)


def _images(history: HistoryStore, path: list[StoredMessage]) -> dict[int, list[Attachment]]:
    return ImageStore(history.db).for_messages(m.id for m in path if m.role == "user")


def _tool_calls(
    history: HistoryStore, path: list[StoredMessage]
) -> dict[int, list[StoredToolCall]]:
    return ToolCallStore(history.db).for_messages(m.id for m in path if m.role == "assistant")


def _tool_call_dict(call: StoredToolCall) -> dict[str, Any]:
    return {
        "round": call.round, "position": call.position, "at": call.at, "id": call.call_id,
        "name": call.name, "arguments": call.arguments, "server": call.server,
        "status": call.status, "result": call.result, "is_error": call.is_error,
        "problem": call.problem, "ms": call.ms,
    }  # fmt: skip


def _image_dict(image: Attachment) -> dict[str, Any]:
    """An image as it was sent (base64), with the original's size; the original's bytes
    stay in the local database."""
    sent = image.sent
    return {
        "name": image.name,
        "mime": sent.mime,
        "width": sent.width,
        "height": sent.height,
        "bytes": len(sent.data),
        "original_width": image.original_width,
        "original_height": image.original_height,
        "original_bytes": len(image.original),
        "data": sent.base64(),
    }


def image_markdown(number: int, image: Attachment) -> str:
    """![image 1: photo.jpg, 1024×768](data:image/jpeg;base64,...): the image sent, inline."""
    sent = image.sent
    name = f"{_one_line(image.name).replace(']', ')')}, " if image.name else ""
    return f"![image {number}: {name}{sent.width}×{sent.height}]({sent.data_url()})"


def export_data(
    history: HistoryStore, metrics: MetricsStore, conversation_id: int
) -> dict[str, Any]:
    conversation, path, by_message = _load(history, metrics, conversation_id)
    images = _images(history, path)
    calls = _tool_calls(history, path)
    return {
        "format": "tachy-conversation",
        "version": EXPORT_FORMAT_VERSION,
        "id": conversation.id,
        "title": conversation.title,
        "created_at": iso_time(conversation.created_at),
        "updated_at": iso_time(conversation.updated_at),
        "server": conversation.server,
        "model": conversation.model,
        "messages": [
            {
                "id": message.id,
                "role": message.role,
                "content": message.content,
                "thinking": message.thinking,
                "state": message.state.value,
                "error_message": message.error_message,
                "created_at": iso_time(message.created_at),
                "server": message.server,
                "model": message.model,
                "metrics": [_metrics_dict(r) for r in by_message.get(message.id, [])],
                "images": [_image_dict(i) for i in images.get(message.id, [])],
                "tool_calls": [_tool_call_dict(c) for c in calls.get(message.id, [])],
            }
            for message in path
        ],
    }


def _metrics_dict(record: MetricsRecord) -> dict[str, Any]:
    data = record.as_dict()
    data["time"] = iso_time(record.time)
    del data["message_id"]
    return data


def export_json(history: HistoryStore, metrics: MetricsStore, conversation_id: int) -> str:
    return (
        json.dumps(export_data(history, metrics, conversation_id), indent=2, ensure_ascii=False)
        + "\n"
    )


def export_markdown(history: HistoryStore, metrics: MetricsStore, conversation_id: int) -> str:
    conversation, path, by_message = _load(history, metrics, conversation_id)
    lines = [f"# {_one_line(conversation.title) or 'Conversation'}", ""]
    lines.append(f"*Exported from Tachy · started {iso_time(conversation.created_at)}*")
    lines.append("")
    images = _images(history, path)
    calls = _tool_calls(history, path)
    for message in path:
        records = by_message.get(message.id, [])
        lines.extend(_message_markdown(message, records, calls.get(message.id, [])))
        attached = images.get(message.id, [])
        lines += [image_markdown(n, image) for n, image in enumerate(attached, 1)]
        if attached:
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _message_markdown(
    message: StoredMessage, records: list[MetricsRecord], calls: list[StoredToolCall]
) -> list[str]:
    heading = message.role.capitalize()
    if message.role == "assistant" and message.model:
        heading += f" · {_one_line(message.model)}"
    lines = [f"## {heading}", ""]
    if message.thinking:
        lines += ["> **Thinking**", ">"]
        lines += [f"> {line}" if line else ">" for line in message.thinking.splitlines()]
        lines.append("")
    start = 0
    for call in calls:
        at = min(max(call.at, start), len(message.content))
        if message.content[start:at].strip():
            lines += [message.content[start:at].strip("\n"), ""]
        lines += tool_call_markdown(call)
        start = at
    if message.content[start:]:
        lines += [message.content[start:], ""]
    if message.state is not MessageState.COMPLETE:
        note = f"*[{message.state.value}]*"
        if message.error_message:
            note = f"*[{message.state.value}: {_one_line(message.error_message)}]*"
        lines += [note, ""]
    lines += [f"*{metrics_line(record)}*" for record in records]
    if records:
        lines.append("")
    return lines


def tool_call_markdown(call: StoredToolCall) -> list[str]:
    """**Tool** `add` · demo · 12 ms, then its arguments and result in code fences."""
    ran = f" · {call.ms:.0f} ms" if call.ms else ""
    problem = f" · {call.problem}" if call.problem else " · error" if call.is_error else ""
    where = f" · {_one_line(call.server)}" if call.server else ""
    lines = [f"**Tool** `{_one_line(call.name)}`{where}{ran}{problem}", ""]
    lines += _fenced("json", call.arguments or "{}")
    if call.result is not None:
        lines += _fenced("text", call.result)
    return lines


def _fenced(language: str, text: str) -> list[str]:
    """A code fence longer than any run of backticks in the text (it cannot close it)."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return [f"{fence}{language}", text, fence, ""]


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for character in text:
        run = run + 1 if character == "`" else 0
        longest = max(longest, run)
    return longest


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} ms"


def metrics_line(record: MetricsRecord) -> str:
    """TTFT 45 ms · TTFO 45 ms · TPOT 17 ms · 59.1 tokens/s · E2E 1.2 s ... in one line."""
    parts = [
        f"TTFT {_ms(record.ttft_ms)}",
        f"TTFO {_ms(record.ttfo_ms)}",
        f"TPOT {_ms(record.tpot_ms)}",
    ]
    if record.tokens_per_s is not None:
        parts.append(f"{record.tokens_per_s:.1f} tokens/s")
    parts.append(f"E2E {_ms(record.e2el_ms)}")
    if record.output_tokens is not None:
        approx = "≈" if record.output_tokens_estimated else ""
        parts.append(f"{approx}{record.output_tokens} tokens")
    if record.tier:
        parts.append(f"tier {record.tier}")
    if record.cold:
        parts.append("cold start")
    if record.outcome and record.outcome != "complete":
        parts.append(record.outcome)
    return " · ".join(parts)
