"""Text from a server made safe to show: control characters, terminal escapes and
bidirectional overrides become visible escapes instead of acting.

A model name or an error message comes from whatever answers on that port. Shown as
is, "\\x1b[2J" clears the user's terminal, U+202E turns "gguf.exe" into "exe.fuug",
and a NUL or a carriage return rewrites the line. `visible` spells each of them out
(\\x1b, \\u202e, \\r) so the user sees what the server sent and nothing acts on it.
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls, the bidirectional embeddings, overrides and
# isolates, the directional marks, and the line/paragraph separators.
_OTHER_ACTING = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_ANY_ACTING = re.compile(f"[\x00-\x1f{_OTHER_ACTING}]")
_ACTING_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER_ACTING}]")  # keeps \t and \n
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """One line: every acting character escaped, newlines and tabs too."""
    return _ANY_ACTING.sub(_escape, text)


def visible_lines(text: str) -> str:
    """Like visible, but newlines and tabs are kept (a log tail, a multi-line note)."""
    return _ACTING_BUT_LINES.sub(_escape, text)
