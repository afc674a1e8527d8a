"""The errors' sentences in the window's language.

The layers below write each error's sentence in English (client/backends/errors.py and
the errors beside it: it is also what the command line prints and what is stored with a
failed answer). The window recognises those sentences and says them in its own
language. Each is listed once below, as a template whose {fields} are its parameters;
the pattern that recognises it is made from the template. A field named in
`OUR_WORDS` holds Tachy's own words (why a connection failed, what is wrong with an
address): those are recognised and translated too. Every other field (a URL, a model
name, what the server itself said) stays as it came. A sentence it does not know is
shown as it is. tests/ui/chat/test_error_text.py makes every error kind the window can show
and checks that in Chinese no English sentence is left, so a reworded sentence below
fails there instead of showing English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from PySide6.QtCore import QCoreApplication

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

# A longer form comes before a shorter one it starts like ("... at {url} ({detail})."
# before "... at {url}."): the first template that matches the whole sentence wins.
SENTENCES = (
    # client/backends/errors.py
    QT_TRANSLATE_NOOP(
        "Errors",
        "Can't reach the server at {url} now ({detail}). Check that it is running, "
        "or choose another server.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "Can't reach the server at {url}. Check that it is running, or choose another server.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server sent nothing for {seconds} s. It may be loading a large model or "
        "overloaded: keep waiting, retry, or choose another server.",
    ),
    # client/services/chat/generation.py: Cancel after Keep waiting / Cancel
    QT_TRANSLATE_NOOP("Errors", "No answer arrived in {seconds} s, and the request was cancelled."),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The answer stopped arriving: no token for {seconds} s. "
        "The text so far is kept; continue or retry.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The answer was interrupted: {detail}. The text so far is kept; continue or retry.",
    ),
    QT_TRANSLATE_NOOP("Errors", "The server is still loading its model. Retry in a moment."),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server was still loading its model after {seconds} s. Keep waiting, "
        "or retry in a moment.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server has no model named '{model}'. Pick one from the model list. "
        "The server said: “{said}”.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The server has no model named '{model}'. Pick one from the model list."
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server refused the API key (HTTP {status}). Check the key saved for this "
        "server. The server said: “{said}”.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server refused the API key (HTTP {status}). Check the key saved for this server.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The server reported an error (HTTP {status}). The server said: “{said}”."
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The server reported an error during the answer. The server said: “{said}”."
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The server reported an error (HTTP {status}) and gave no details."
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The server reported an error during the answer and gave no details."
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The server's reply could not be read: {detail}. "
        "Is this the right URL and API type for this server?",
    ),
    QT_TRANSLATE_NOOP("Errors", "'{text}' is not a server address: {reason}."),
    # client/backends/engine/local_engine.py
    QT_TRANSLATE_NOOP(
        "Errors", "The local model is not available: {what}. Install it with: {command}"
    ),
    QT_TRANSLATE_NOOP(
        "Errors", "The local model engine {reason}.\nLast lines from the engine:\n{log}"
    ),
    QT_TRANSLATE_NOOP("Errors", "The local model engine {reason}."),
    # client/services/servers/model_admin.py
    QT_TRANSLATE_NOOP(
        "Errors",
        "This {api} server does not pull or delete models over its API: only Ollama does. "
        "Manage its models where it runs.",
    ),
    # client/store/secrets.py
    QT_TRANSLATE_NOOP(
        "Errors",
        "No system keyring is available, so Tachy cannot keep the API key. Install or unlock "
        "one (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager) and try again.",
    ),
    QT_TRANSLATE_NOOP("Errors", "The system keyring refused the request: {error}"),
    # client/store/knowledge/db.py
    QT_TRANSLATE_NOOP("Errors", "The knowledge index {path} cannot be opened: {error}."),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The knowledge index {path} was written by a newer Tachy; update Tachy or remove "
        "the file (your documents are not in it, only their index).",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "This Python's SQLite has no full-text search (FTS5), which the knowledge index needs.",
    ),
    QT_TRANSLATE_NOOP("Errors", "The knowledge index {path} cannot be used: {error}."),
    QT_TRANSLATE_NOOP(
        "Errors",
        "The knowledge index {path} is damaged ({error}); remove the file and add your "
        "folders again (your documents are not in it, only their index).",
    ),
    # client/backends/kinds/registry.py (no_figures_sentence), client/backends/figures/
    QT_TRANSLATE_NOOP("Errors", "This server's /metrics has no vLLM or llama.cpp figures."),
    QT_TRANSLATE_NOOP("Errors", "The server's {path} did not answer JSON."),
    QT_TRANSLATE_NOOP(
        "Errors", "This server does not offer {path} (start llama.cpp server with --metrics)."
    ),
    QT_TRANSLATE_NOOP("Errors", "This server does not offer {path}."),
    QT_TRANSLATE_NOOP("Errors", "The server's {path} answered HTTP {status}."),
    QT_TRANSLATE_NOOP("Errors", "No server figures: {detail}."),
    # client/services/servers/saved_servers.py
    QT_TRANSLATE_NOOP("Errors", "A saved server is already called {name}."),
    # Images: ImagesRefused (client/backends/errors.py), client/services/images
    QT_TRANSLATE_NOOP(
        "Errors",
        "This model ({model}) cannot see images, so the server refused the message. Your "
        "question is kept: remove the image, or choose a model that can see. "
        "The server said: “{said}”.",
    ),
    QT_TRANSLATE_NOOP(
        "Errors",
        "This model ({model}) cannot see images, so the server refused the message. Your "
        "question is kept: remove the image, or choose a model that can see.",
    ),
    QT_TRANSLATE_NOOP("Errors", "{model} cannot see images (the server says it has no vision)."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” is not an image Tachy can read."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” is a {kind} image; send PNG, JPEG, WebP or GIF."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” has too many pixels to send ({megapixels} megapixels)."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” has too many pixels to send."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” could not be read: the file is damaged."),
    QT_TRANSLATE_NOOP("Errors", "“{name}” could not be read ({reason})."),
    QT_TRANSLATE_NOOP(
        "Errors", "“{name}” is too big to send ({size} MB; the limit is {limit} MB)."
    ),
    QT_TRANSLATE_NOOP("Errors", "A message takes up to {limit} images; the rest were left out."),
    # client/services/chat/generation.py (a bug's error, not a typed one) and the history
    QT_TRANSLATE_NOOP("Errors", "Something went wrong: {error}"),
    QT_TRANSLATE_NOOP(
        "Errors", "Tachy closed while this answer was arriving; the text so far is kept."
    ),
)

# Tachy's own words inside those sentences: why a connection or a stream failed, what
# is wrong with an address or the reply, why the engine did not start.
PHRASES = (
    # BackendUnreachable and StreamInterrupted (client/backends: stream, http_json ...)
    QT_TRANSLATE_NOOP("ErrorParts", "the connection was closed"),
    QT_TRANSLATE_NOOP("ErrorParts", "the server closed the stream before it finished"),
    QT_TRANSLATE_NOOP("ErrorParts", "no answer within {seconds} s"),
    QT_TRANSLATE_NOOP("ErrorParts", "no word for {seconds} s"),
    QT_TRANSLATE_NOOP("ErrorParts", "no answer: {detail}"),
    QT_TRANSLATE_NOOP("ErrorParts", "the reply was not a chat answer"),
    # what httpx and the system say, in plain words (client/backends/reasons.py)
    QT_TRANSLATE_NOOP("ErrorParts", "nothing is listening on its port"),
    QT_TRANSLATE_NOOP("ErrorParts", "no connection could be made"),
    QT_TRANSLATE_NOOP("ErrorParts", "the connection to the server was cut"),
    QT_TRANSLATE_NOOP("ErrorParts", "its host name was not found"),
    QT_TRANSLATE_NOOP("ErrorParts", "the network cannot reach it"),
    QT_TRANSLATE_NOOP("ErrorParts", "no answer in time"),
    QT_TRANSLATE_NOOP("ErrorParts", "the server closed the connection without answering"),
    QT_TRANSLATE_NOOP(
        "ErrorParts", "the server closed the connection before the answer was complete"
    ),
    QT_TRANSLATE_NOOP("ErrorParts", "the server's answer broke the HTTP rules"),
    # ProtocolError (client/backends: decoders, sse, http_json, detect, ollama_models)
    QT_TRANSLATE_NOOP(
        "ErrorParts",
        "the server redirected the request (HTTP {status}) to {location}, and Tachy does not "
        "follow redirects, so nothing was sent there. Use the final address as the URL",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorParts",
        "the server redirected the request (HTTP {status}), and Tachy does not follow "
        "redirects, so nothing was sent there. Use the final address as the URL",
    ),
    QT_TRANSLATE_NOOP("ErrorParts", "the server sent a web page (HTML) instead of a model stream"),
    QT_TRANSLATE_NOOP("ErrorParts", "the server sent plain JSON instead of an event stream"),
    QT_TRANSLATE_NOOP("ErrorParts", "a line is not a server-sent event: {snippet}"),
    QT_TRANSLATE_NOOP("ErrorParts", "a line of the stream is longer than {size} MiB"),
    QT_TRANSLATE_NOOP("ErrorParts", "a line of the stream is not a JSON object: {snippet}"),
    QT_TRANSLATE_NOOP("ErrorParts", "a line of the stream is not JSON: {snippet}"),
    QT_TRANSLATE_NOOP("ErrorParts", "HTTP 404 ({message})"),
    QT_TRANSLATE_NOOP("ErrorParts", "/api/pull sent a line that is not JSON: {snippet}"),
    QT_TRANSLATE_NOOP("ErrorParts", "/api/pull sent a line that is not a JSON object"),
    QT_TRANSLATE_NOOP("ErrorParts", "{url} did not answer JSON: {snippet}"),
    QT_TRANSLATE_NOOP("ErrorParts", "{what} is not a JSON object"),  # after the /api/pull ones
    QT_TRANSLATE_NOOP(
        "ErrorParts",
        "the server at {url} answered, but neither like Ollama (/api/version) nor like an "
        "OpenAI-compatible server (/v1/models)",
    ),
    # InvalidServerAddress (client/backends/address.py)
    QT_TRANSLATE_NOOP("ErrorParts", "'{scheme}://' is not supported; use http:// or https://"),
    QT_TRANSLATE_NOOP("ErrorParts", "it contains a space"),
    QT_TRANSLATE_NOOP("ErrorParts", "it has no host name"),
    QT_TRANSLATE_NOOP("ErrorParts", "port {port} is out of range"),
    # (httpx's words for the same, lower-cased by address.py)
    QT_TRANSLATE_NOOP("ErrorParts", "invalid port: {port}"),
    QT_TRANSLATE_NOOP("ErrorParts", "invalid ipv4 address: {address}"),
    QT_TRANSLATE_NOOP("ErrorParts", "invalid ipv6 address: {address}"),
    QT_TRANSLATE_NOOP(
        "ErrorParts",
        "invalid non-printable ascii character in url, {character} at position {position}",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorParts",
        "it contains a user name or password; give the API key separately (so it is kept "
        "in the system keyring, not in the address)",
    ),
    # LocalEngineUnavailable and LocalEngineFailed (client/backends/engine/local_engine.py)
    QT_TRANSLATE_NOOP("ErrorParts", "xllamacpp (the `local` extra) is not installed"),
    QT_TRANSLATE_NOOP("ErrorParts", "no model file at {path} ({variable})"),
    QT_TRANSLATE_NOOP("ErrorParts", "the model package {name} is missing"),
    QT_TRANSLATE_NOOP("ErrorParts", "the model file {path} is missing"),
    QT_TRANSLATE_NOOP("ErrorParts", "is not started"),
    QT_TRANSLATE_NOOP("ErrorParts", "can't use port {port}: it is in use"),
    QT_TRANSLATE_NOOP("ErrorParts", "exited during start-up (exit code {code})"),
    QT_TRANSLATE_NOOP("ErrorParts", "did not answer within {seconds} s of starting"),
    # why the history cannot be used (client/store/recovery.py; the storage banner)
    QT_TRANSLATE_NOOP("ErrorParts", "schema {version}; this one knows {known}"),
    QT_TRANSLATE_NOOP("ErrorParts", "{folder} is a file, not a folder"),
)

# Fields holding Tachy's words (one of PHRASES); the rest are the server's or the user's.
OUR_WORDS = frozenset({"detail", "reason", "what", "message"})
_FIELD = re.compile(r"\{(\w+)\}")


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = _FIELD.split(template)  # literal, name, literal, name, ..., literal
    regex = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>.*?)"
        for index, part in enumerate(parts)
    )
    return re.compile(regex, re.DOTALL)


def translated(
    text: str,
    templates: tuple[str, ...],
    context: str,
    ours: Callable[[str, str], str] = lambda _name, value: value,
) -> str | None:
    """`text` in the window's language when it fills one of `templates` (marked in
    `context`), each field's value passed through ours(name, value); else None."""
    for template in templates:
        found = _pattern(template).fullmatch(text)
        if found is not None:
            values = {name: ours(name, value) for name, value in found.groupdict().items()}
            return QCoreApplication.translate(context, template).format(**values)
    return None


def _our_words(name: str, value: str) -> str:
    return phrase_text(value) if name in OUR_WORDS else value


def _translated(sentence: str, templates: tuple[str, ...], context: str) -> str | None:
    return translated(sentence, templates, context, _our_words)


def phrase_text(phrase: str) -> str:
    """Tachy's words inside a sentence in the window's language; others as they came."""
    shown = _translated(phrase, PHRASES, "ErrorParts")
    return phrase if shown is None else shown


def error_text(sentence: str) -> str:
    """`sentence` in the window's language when it is one of the errors' sentences."""
    shown = _translated(sentence, SENTENCES, "Errors")
    return sentence if shown is None else shown


def is_known(sentence: str) -> bool:
    return any(_pattern(template).fullmatch(sentence) for template in SENTENCES)
