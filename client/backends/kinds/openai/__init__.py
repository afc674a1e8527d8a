"""The generic OpenAI-compatible kind (a server that says no more) and the request body
every OpenAI-compatible kind starts from (the API's backend: client/backends/apis/openai).
May import: client.core, client.backends.kinds.kind.
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
