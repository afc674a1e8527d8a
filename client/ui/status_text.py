"""The words beside the model's name and under the composer, in the window's language.

The services give the facts (ModelStatus, Prediction); their English label() methods
stay for the command line and logs. Numbers follow QLocale (the window's language).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from client.core.prediction import ModelState, Prediction
from client.services.model_status import FOREVER_S, ModelStatus


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
