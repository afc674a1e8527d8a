"""The generic OpenAI-compatible kind, and the body every OpenAI-compatible kind starts from.
May import: client.core, client.backends.kinds.kind, client.backends.tool_wire.
"""

from __future__ import annotations

from client.backends.kinds.kind import ServerKind
from client.backends.kinds.openai.body import chat_body

OPENAI = ServerKind(
    name="openai",
    display_name="OpenAI-compatible",
    api="openai",
    body=chat_body,
)
