"""The names of the kinds of server, as users know them, for every view: the HUD's
Server tab names the server it polls, the Waterfall the server whose timings it draws,
with the same words (issue 39: the two once said "llama.cpp server" and "Ollama" of
one lab)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

# The services' names of the kinds ("vllm", "llamacpp", "ollama"), in words; the
# translation context is the Server tab's, where they were first said.
SERVER_NAMES = {
    "vllm": "vLLM",
    "llamacpp": QT_TRANSLATE_NOOP("ServerView", "llama.cpp server"),
    "ollama": "Ollama",
}


def server_kind_name(kind: str | None, unknown: str = "") -> str:
    """The kind's name in the window's language; `unknown` (else the kind as given)
    when it has none."""
    known = SERVER_NAMES.get(kind or "")
    if known is None:
        return unknown or (kind or "")
    return QCoreApplication.translate("ServerView", known)
