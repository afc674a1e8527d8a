"""`tachy doctor`'s report lines in the window's language (Help > Check this machine).

client/services/doctor/checks.py and doctor_engine.py write each check in English: the
terminal prints them so. The window recognises each check's name, detail and fix
(listed once below as templates, as ui/error_text.py does for errors) and says them in
its own language; paths, names of libraries and what a program printed stay as they
came. A detail that is an error's sentence is said as the error is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.services.doctor.checks import Check, Status
from client.ui.common.error_text import error_text, phrase_text, translated
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

STATUS = {
    Status.OK: QT_TRANSLATE_NOOP("Doctor", "ok"),
    Status.FAIL: QT_TRANSLATE_NOOP("Doctor", "FAIL"),
    Status.INFO: QT_TRANSLATE_NOOP("Doctor", "info"),
}
# A template that starts with a field ("{size} MB") comes after the fixed ones.
TEXTS = (
    # the checks' names
    QT_TRANSLATE_NOOP("Doctor", "data folder"),
    QT_TRANSLATE_NOOP("Doctor", "damaged copies"),
    QT_TRANSLATE_NOOP("Doctor", "database"),
    QT_TRANSLATE_NOOP("Doctor", "database schema"),
    QT_TRANSLATE_NOOP("Doctor", "database size"),
    QT_TRANSLATE_NOOP("Doctor", "keyring"),
    QT_TRANSLATE_NOOP("Doctor", "display"),
    QT_TRANSLATE_NOOP("Doctor", "local engine"),
    QT_TRANSLATE_NOOP("Doctor", "model file"),
    QT_TRANSLATE_NOOP("Doctor", "engine start"),
    QT_TRANSLATE_NOOP("Doctor", "engine answer"),
    QT_TRANSLATE_NOOP("Doctor", "port {port} ({server})"),
    QT_TRANSLATE_NOOP("Doctor", "server"),
    QT_TRANSLATE_NOOP("Doctor", "last answer"),
    # what each found
    QT_TRANSLATE_NOOP("Doctor", "none yet since Tachy started"),
    QT_TRANSLATE_NOOP("Doctor", "kept beside the history: {names}"),
    QT_TRANSLATE_NOOP("Doctor", "not checked: the data folder cannot be used (see above)"),
    QT_TRANSLATE_NOOP("Doctor", "no history yet at {path}; Tachy makes it at start"),
    QT_TRANSLATE_NOOP(
        "Doctor", "version {version}, written by a newer Tachy (this one knows {known})"
    ),
    QT_TRANSLATE_NOOP("Doctor", "no usable system keyring ({name})"),
    QT_TRANSLATE_NOOP("Doctor", "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"),
    QT_TRANSLATE_NOOP("Doctor", "Qt did not start within 30 s"),
    QT_TRANSLATE_NOOP("Doctor", "Qt platform plugin '{name}' loads"),
    QT_TRANSLATE_NOOP("Doctor", "Qt's platform plugin does not load: {output}"),
    QT_TRANSLATE_NOOP("Doctor", "the local engine (the `local` extra) is not installed"),
    QT_TRANSLATE_NOOP("Doctor", "installed"),
    QT_TRANSLATE_NOOP("Doctor", "skipped (--no-engine)"),
    QT_TRANSLATE_NOOP("Doctor", "answered its health check in {seconds} s"),
    QT_TRANSLATE_NOOP("Doctor", "no LLM server answering"),
    # what to do
    QT_TRANSLATE_NOOP(
        "Doctor", "make it yourself, or set TACHY_DATA_DIR to a folder you can write."
    ),
    QT_TRANSLATE_NOOP(
        "Doctor", "move the file {folder} away (keep it if it matters), or set TACHY_DATA_DIR."
    ),
    QT_TRANSLATE_NOOP("Doctor", "free some space on the disk that holds {folder}."),
    QT_TRANSLATE_NOOP(
        "Doctor", "mount that disk read-write, or set TACHY_DATA_DIR to a writable folder."
    ),
    QT_TRANSLATE_NOOP(
        "Doctor", "give yourself write access (chmod u+rwx {folder}) or set TACHY_DATA_DIR."
    ),
    QT_TRANSLATE_NOOP(
        "Doctor",
        "start tachy: it keeps the damaged file beside it (renamed with the date) and "
        "recovers every readable conversation into a new history.",
    ),
    QT_TRANSLATE_NOOP("Doctor", "update Tachy; until then the history is shown read-only."),
    QT_TRANSLATE_NOOP(
        "Doctor",
        "install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, Windows "
        "Credential Manager); until then an API key is used for the session only.",
    ),
    QT_TRANSLATE_NOOP(
        "Doctor",
        "start Tachy from a desktop session (or QT_QPA_PLATFORM=offscreen for tests).",
    ),
    QT_TRANSLATE_NOOP("Doctor", "check the display server."),
    QT_TRANSLATE_NOOP(
        "Doctor",
        "install the libraries Qt needs (Debian/Ubuntu: sudo apt install libxcb-cursor0 "
        "libxkbcommon-x11-0 libegl1), or try QT_QPA_PLATFORM=wayland or xcb.",
    ),
    QT_TRANSLATE_NOOP("Doctor", "install it: {command}"),
    QT_TRANSLATE_NOOP("Doctor", "see the lines above; run `tachy serve-local` to watch"),
    QT_TRANSLATE_NOOP("Doctor", "run `tachy serve-local` to see why"),
    # templates that start with a field
    QT_TRANSLATE_NOOP("Doctor", "{folder} does not exist yet; Tachy makes it at start"),
    QT_TRANSLATE_NOOP("Doctor", "{folder} does not exist and cannot be made"),
    QT_TRANSLATE_NOOP("Doctor", "{folder} is a file, not a folder"),
    QT_TRANSLATE_NOOP("Doctor", "{path} is damaged ({reason})"),
    QT_TRANSLATE_NOOP("Doctor", "{path}: integrity ok, schema {version} of {known}"),
    QT_TRANSLATE_NOOP("Doctor", "{size} MB: delete old conversations to shrink it"),
    QT_TRANSLATE_NOOP("Doctor", "{name} refused a read: {error}"),
    QT_TRANSLATE_NOOP("Doctor", "{count} characters in {seconds} s"),
    QT_TRANSLATE_NOOP("Doctor", "{api} server with {models} model(s) at {url}"),
    QT_TRANSLATE_NOOP("Doctor", "{model} at {server}: first token in {ms} ms"),
    QT_TRANSLATE_NOOP("Doctor", "{model} at {server}: no first token"),
    QT_TRANSLATE_NOOP("Doctor", "{folder} (writable)"),
    QT_TRANSLATE_NOOP("Doctor", "{path} ({size} MB)"),
    QT_TRANSLATE_NOOP("Doctor", "{size} MB"),
)


def _field(name: str, value: str) -> str:
    return doctor_text(value) if name == "server" else value


def doctor_text(text: str) -> str:
    """A check's name, detail or fix in the window's language; an error's sentence as
    the error is said; anything else as it came."""
    shown = translated(text, TEXTS, "Doctor", _field)
    if shown is not None:
        return shown
    said = error_text(text)
    return said if said != text else phrase_text(text)


def check_line(check: Check) -> str:
    """Check.line() in the window's language (in English, the same line)."""
    status = QCoreApplication.translate("Doctor", STATUS[check.status]).ljust(4)
    line = QCoreApplication.translate("Doctor", "{status}  {name}: {detail}").format(
        status=status, name=doctor_text(check.name), detail=doctor_text(check.detail)
    )
    if check.status is Status.FAIL and check.fix:
        fix = QCoreApplication.translate("Doctor", "Fix: {fix}")
        line += " " + fix.format(fix=doctor_text(check.fix))
    return line
