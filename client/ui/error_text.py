"""The errors' sentences in the window's language.

The backends write each error's sentence in English (client/backends/errors.py: it is
also what the command line prints and what is stored with a failed answer). The window
recognises those sentences and says them in its own language; what the server itself
said (its message, a URL) stays as it came. A sentence it does not know is shown as it
is. tests/ui/test_error_text.py builds every error kind and checks each is recognised,
so a reworded sentence in the backends fails there instead of showing English.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from client.ui.noop_tr import QT_TRANSLATE_NOOP

# (the English sentence as a pattern, its translatable text with the same {names})
SENTENCES = (
    (
        r"Can't reach the server at (?P<url>\S+?)(?P<why> \(.*\))?\. Check that it is "
        r"running, or choose another server\.",
        QT_TRANSLATE_NOOP(
            "Errors",
            "Can't reach the server at {url}{why}. Check that it is running, "
            "or choose another server.",
        ),
    ),
    (
        r"The server sent nothing for (?P<seconds>\S+) s\. It may be loading a large model "
        r"or overloaded: keep waiting, retry, or choose another server\.",
        QT_TRANSLATE_NOOP(
            "Errors",
            "The server sent nothing for {seconds} s. It may be loading a large model or "
            "overloaded: keep waiting, retry, or choose another server.",
        ),
    ),
    (
        r"The answer stopped arriving: no token for (?P<seconds>\S+) s\. "
        r"The text so far is kept; continue or retry\.",
        QT_TRANSLATE_NOOP(
            "Errors",
            "The answer stopped arriving: no token for {seconds} s. "
            "The text so far is kept; continue or retry.",
        ),
    ),
    (
        r"The answer was interrupted: (?P<detail>.*)\. The text so far is kept; "
        r"continue or retry\.",
        QT_TRANSLATE_NOOP(
            "Errors",
            "The answer was interrupted: {detail}. The text so far is kept; continue or retry.",
        ),
    ),
    (
        r"The server has no model named '(?P<model>.*)'\. Pick one from the model list"
        r"(?P<said> \(server said: .*\))?\.",
        QT_TRANSLATE_NOOP(
            "Errors", "The server has no model named '{model}'. Pick one from the model list{said}."
        ),
    ),
    (
        r"The server refused the API key \(HTTP (?P<status>\d+)\): (?P<message>.*)\. "
        r"Check the key saved for this server\.",
        QT_TRANSLATE_NOOP(
            "Errors",
            "The server refused the API key (HTTP {status}): {message}. "
            "Check the key saved for this server.",
        ),
    ),
    (
        r"The server reported an error \(HTTP (?P<status>\d+)\): (?P<message>.*)",
        QT_TRANSLATE_NOOP("Errors", "The server reported an error (HTTP {status}): {message}"),
    ),
    (
        r"The server reported an error \(during the answer\): (?P<message>.*)",
        QT_TRANSLATE_NOOP("Errors", "The server reported an error (during the answer): {message}"),
    ),
    (
        r"The server's reply could not be read: (?P<detail>.*)\. "
        r"Is this the right URL and API type for this server\?",
        QT_TRANSLATE_NOOP(
            "Errors",
            "The server's reply could not be read: {detail}. "
            "Is this the right URL and API type for this server?",
        ),
    ),
    (
        r"'(?P<text>.*)' is not a server address: (?P<reason>.*)\.",
        QT_TRANSLATE_NOOP("Errors", "'{text}' is not a server address: {reason}."),
    ),
)
_COMPILED = [(re.compile(pattern, re.DOTALL), text) for pattern, text in SENTENCES]


def error_text(sentence: str) -> str:
    """`sentence` in the window's language when it is one of the errors' sentences."""
    for pattern, text in _COMPILED:
        found = pattern.fullmatch(sentence)
        if found is not None:
            parts = {name: value or "" for name, value in found.groupdict().items()}
            return QCoreApplication.translate("Errors", text).format(**parts)
    return sentence


def is_known(sentence: str) -> bool:
    return any(pattern.fullmatch(sentence) for pattern, _ in _COMPILED)
