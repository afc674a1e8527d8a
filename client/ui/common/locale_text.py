"""Numbers, sizes and clock times as the window's locale writes them (QLocale: its digit
grouping and decimal point), for every figure the window shows. The command line keeps
Python's formatting (plain English)."""

from __future__ import annotations

from PySide6.QtCore import QDateTime, QLocale

NOTHING = "–"  # a figure the server or the request did not give


def number(value: float | None, decimals: int = 0) -> str:
    """1,234 or 1,234.5 (1.234,5 in German); "–" for no value."""
    if value is None or value != value:  # NaN
        return NOTHING
    if decimals == 0:
        return QLocale().toString(round(value))
    return QLocale().toString(float(value), "f", decimals)


def short_number(value: float | None) -> str:
    """Like Python's {:g}: 3, 0.5, 12.25 (no trailing zeros), grouped."""
    if value is None or value != value:
        return NOTHING
    if float(value).is_integer():
        return number(value)
    return QLocale().toString(float(value), "g", 6)


def percent(fraction: float | None, decimals: int = 1) -> str:
    """0.123 -> "12.3 %" (the sign placed as the locale places it)."""
    if fraction is None or fraction != fraction:
        return NOTHING
    locale = QLocale()
    return f"{locale.toString(fraction * 100, 'f', decimals)} {locale.percent()}"


def clock(unix_seconds: float) -> str:
    """The time of day with seconds, in the locale's order: 15:04:09, 3:04:09 PM."""
    when = QDateTime.fromMSecsSinceEpoch(round(unix_seconds * 1000))
    locale = QLocale()
    # The long format ends or starts with the time zone ("t"/"tttt"): not wanted here.
    pattern = locale.timeFormat(QLocale.FormatType.LongFormat).replace("t", "").strip()
    return locale.toString(when.time(), pattern)


def size_text(size_bytes: int | None) -> str:
    """ "1.3 GB", "271 MB", "512 KB" (decimal units, as Ollama and the CLI count)."""
    if not size_bytes:
        return ""
    for unit, scale, decimals in (("GB", 10**9, 1), ("MB", 10**6, 0), ("KB", 10**3, 0)):
        if size_bytes >= scale:
            return f"{number(size_bytes / scale, decimals)} {unit}"
    return f"{number(size_bytes)} B"
