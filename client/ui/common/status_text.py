"""The words beside the model's name and under the composer, in the window's language.

The services give the facts (ModelStatus, Prediction); their English label() methods
stay for the command line and logs. Numbers follow QLocale (the window's language).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.prediction import ModelState, Prediction
from client.services.servers.model_status import FOREVER_S, ModelStatus, ServerPolicy
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP


def span_text(seconds: float) -> str:
    """A rounded span: "29 min", "2 h", "40 s"."""
    locale = QLocale()
    if seconds >= 3600:
        return QCoreApplication.translate("StatusText", "{n} h").format(
            n=locale.toString(round(seconds / 3600))
        )
    if seconds >= 60:
        return QCoreApplication.translate("StatusText", "{n} min").format(
            n=locale.toString(round(seconds / 60))
        )
    return QCoreApplication.translate("StatusText", "{n} s").format(
        n=locale.toString(round(seconds))
    )


def model_state_text(status: ModelStatus) -> str:
    """ "cold", "loading…", "warm", "warm · 29 min left"."""
    if status.state is None:
        return ""
    if status.state is ModelState.LOADING:
        return QCoreApplication.translate("StatusText", "loading…")
    if status.state is ModelState.COLD:
        return QCoreApplication.translate("StatusText", "cold")
    left = status.seconds_left()
    if left is None or left > FOREVER_S:
        return QCoreApplication.translate("StatusText", "warm")
    text = QCoreApplication.translate("StatusText", "warm · {left} left")
    return text.format(left=span_text(left))


def duration_text(ms: float) -> str:
    """ "450 ms" to the nearest 10 ms below a second, "1.3 s" above."""
    locale = QLocale()
    if ms < 1000:
        amount = locale.toString(max(round(ms / 10) * 10, 10))
        return QCoreApplication.translate("StatusText", "{n} ms").format(n=amount)
    seconds = locale.toString(ms / 1000, "f", 1)
    return QCoreApplication.translate("StatusText", "{n} s").format(n=seconds)


def prediction_text(prediction: Prediction) -> str:
    """ "≈ 450 ms to first token" (", after the model loads" while no load was measured)."""
    amount = duration_text(prediction.ttft_ms)
    if prediction.load_unknown:
        text = QCoreApplication.translate(
            "StatusText", "≈ {amount} to first token, after the model loads"
        )
    else:
        text = QCoreApplication.translate("StatusText", "≈ {amount} to first token")
    return text.format(amount=amount)


# Names the warmer gives servers (client.services.warming.warming), translated where shown.
THIS_SERVER = QT_TRANSLATE_NOOP("StatusText", "This server")
LOCAL_ENGINE = QT_TRANSLATE_NOOP("StatusText", "The local engine")


def policy_text(policy: ServerPolicy | None, keep_alive: str | int | None, server_name: str) -> str:
    """What Tachy does to keep this server's model warm (the model state's tooltip);
    the same sentences as client.services.servers.model_status.describe_policy, translated."""

    if policy is ServerPolicy.OLLAMA and keep_alive is None:
        return QCoreApplication.translate(
            "StatusText",
            "Ollama unloads idle models on its own schedule (5 minutes by default): "
            "Tachy loads the model when you start typing and lets the server unload it.",
        )
    if policy is ServerPolicy.OLLAMA:
        return QCoreApplication.translate(
            "StatusText",
            "Ollama unloads idle models: Tachy loads the model with keep-alive {keep_alive} "
            "and re-warms it before it expires while you use the app.",
        ).format(keep_alive=keep_alive)
    if policy is ServerPolicy.KEEPS_LOADED:
        name = QCoreApplication.translate("StatusText", server_name or THIS_SERVER)
        return QCoreApplication.translate(
            "StatusText",
            "{name} keeps the model loaded while it runs: Tachy sends one 1-token request "
            "after it starts, then one when you open or type in a conversation it has not "
            "seen, so its prompt cache holds the conversation before you send.",
        ).format(name=name)
    if policy is ServerPolicy.SLEEPS_WHEN_IDLE:
        return QCoreApplication.translate(
            "StatusText",
            "The local engine unloads the model after {keep_alive} idle: Tachy loads it "
            "again when you start typing, with the conversation in its prompt cache.",
        ).format(keep_alive=keep_alive)
    if policy is ServerPolicy.ONE_TOKEN:
        return QCoreApplication.translate(
            "StatusText",
            "This server may unload idle models on its own schedule: Tachy sends a 1-token "
            "request when you start typing and the model may have gone cold.",
        )
    return QCoreApplication.translate("StatusText", "Tachy warms the model when you start typing.")
