"""llama-cpp-python's server: only its name and how it shows itself (owned_by "me").
May import: client.backends.kinds (kind, openai body).
"""

from __future__ import annotations

from client.backends.kinds.kind import ServerKind
from client.backends.kinds.openai.body import chat_body

LLAMA_CPP_PYTHON = ServerKind(
    name="llama-cpp-python",
    display_name="llama-cpp-python",
    api="openai",
    body=chat_body,
    owned_by=("me",),
    keeps_models_loaded_as="The llama-cpp-python server",
)
