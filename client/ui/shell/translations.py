"""The window's language: Tachy's own .qm, pyqtgraph's menus, Qt's qtbase for its dialogs.

The language is, first that is set: `tachy --lang zh_CN`, the Language menu's choice
(QSettings "ui/language"), the system locale. English is the source language, so it
needs no file but its plural forms (tachy_en: "1 stall", "2 stalls").
resources/translations/tachy_<lang>.ts is the translators' file;
packaging/translations.py updates it from the code (pyside6-lupdate) and compiles the
.qm (pyside6-lrelease) that ships in the wheel and the bundle.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator

from client.ui.common.resources import resource

log = logging.getLogger("tachy.ui")
LANGUAGE_KEY = "ui/language"
LANGUAGES = {"en": "English", "zh_CN": "中文（简体）"}  # each shown in its own language


def chosen_language(requested: str | None, settings: QSettings) -> str:
    """The locale name the window uses ("en", "zh_CN", ...)."""
    if requested:
        return requested
    stored = settings.value(LANGUAGE_KEY)
    if isinstance(stored, str) and stored:
        return stored
    return QLocale.system().name()


def install_translations(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Load Tachy's and Qt's translations for `language`; numbers and dates follow it
    through QLocale's default. Returns the installed translators (kept by the caller:
    Qt does not own them)."""
    locale = QLocale(language)
    QLocale.setDefault(locale)
    folder = str(resource("translations"))
    if locale.language() in (QLocale.Language.English, QLocale.Language.C):
        return install_english_plurals(app)
    installed = []
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    # pyqtgraph: the HUD plots' right-click menus (its strings, our translation).
    for name, where in (("tachy", folder), ("pyqtgraph", folder), ("qtbase", qt_folder)):
        translator = QTranslator(app)
        if translator.load(locale, name, "_", where):
            app.installTranslator(translator)
            installed.append(translator)
        else:
            log.info("no %s translation for %s in %s", name, language, where)
    return installed


def install_english_plurals(app: QCoreApplication) -> list[QTranslator]:
    """English needs no file but for its plurals: "%n stall(s)" -> "1 stall", "2 stalls"."""
    translator = QTranslator(app)
    if not translator.load("tachy_en", str(resource("translations"))):
        log.info("no English plural forms in %s", resource("translations"))
        return []
    app.installTranslator(translator)
    return [translator]


def available_languages() -> dict[str, str]:
    """Locale name -> its name in that language, for the languages that have a .qm."""
    folder = resource("translations")
    shipped = {path.stem.removeprefix("tachy_") for path in folder.glob("tachy_*.qm")}
    return {code: name for code, name in LANGUAGES.items() if code == "en" or code in shipped}
