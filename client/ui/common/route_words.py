"""How the window says a cascade's route: the label under an answer ("fast · SmolLM2-135M",
live and reopened alike) and the route decision on the waterfall's understanding stage
("classifier out of budget, rules decided: a short everyday question")."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.services.cascade.route_record import FALLBACK, RouteNote
from client.services.chat.turn_store import POOL_ROUTE
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

CONTEXT = "Cascade"

# client.services.planning.router.RULE_REASONS, in the window's language (a test checks both agree).
RULE_REASONS = (
    QT_TRANSLATE_NOOP("Cascade", "asks to prove, derive, explain or compare"),
    QT_TRANSLATE_NOOP("Cascade", "code"),
    QT_TRANSLATE_NOOP("Cascade", "maths"),
    QT_TRANSLATE_NOOP("Cascade", "translation"),
    QT_TRANSLATE_NOOP("Cascade", "several questions"),
    QT_TRANSLATE_NOOP("Cascade", "a long message"),
    QT_TRANSLATE_NOOP("Cascade", "a short everyday question"),
)
# What became of the fast model's classification when the rules decided.
RULES_DECIDED = {
    "out_of_budget": QT_TRANSLATE_NOOP(
        "Cascade", "classifier out of budget, rules decided: {reason}"
    ),
    "failed": QT_TRANSLATE_NOOP("Cascade", "classifier failed, rules decided: {reason}"),
    "no_answer": QT_TRANSLATE_NOOP("Cascade", "no classifier answer, rules decided: {reason}"),
}


def _tr(text: str) -> str:
    """A phrase marked above with QT_TRANSLATE_NOOP (lupdate reads only literal calls)."""
    return QCoreApplication.translate(CONTEXT, text)


def tier_word(tier: str) -> str:
    if tier == "fast":
        return QCoreApplication.translate("Cascade", "fast")
    return QCoreApplication.translate("Cascade", "strong")


def tier_label(tier: str | None, model: str | None) -> str:
    """ "fast · SmolLM2-135M" for a cascade's answer; "" without a cascade."""
    if not tier or not model or tier == POOL_ROUTE:
        return ""
    label = QCoreApplication.translate("Cascade", "{tier} · {model}")
    return label.format(tier=tier_word(tier), model=model)


def pool_label(route: str | None, server: str | None) -> str:
    """ "from gpu-box-2" under an answer a server of a pool gave; "" otherwise."""
    if route != POOL_ROUTE or not server:
        return ""
    return QCoreApplication.translate("Pool", "from {server}").format(server=server)


def via_label(hides_worker: bool) -> str:
    """ "via router" under an answer a router gave: which worker did, it does not say."""
    return QCoreApplication.translate("Router", "via router") if hides_worker else ""


def decision_reason(note: RouteNote) -> str:
    """Why the route was chosen, in a phrase."""
    if note.by == FALLBACK:
        other = "strong" if note.tier == "fast" else "fast"
        failed = QCoreApplication.translate("Cascade", "the {tier} model failed before answering")
        return failed.format(tier=tier_word(other))
    if note.by == "user":
        return QCoreApplication.translate("Cascade", "asked for by you")
    if note.by == "classifier":
        return QCoreApplication.translate("Cascade", "the fast model's classification")
    reason = note.rules_reason
    reason = _tr(reason) if reason in RULE_REASONS else reason
    said = RULES_DECIDED.get(note.classifier)
    return _tr(said).format(reason=reason) if said else reason


def stage_route(note: RouteNote) -> str:
    """What the waterfall adds to the stage the decision was made in."""
    label = tier_label(note.tier, note.model)
    if note.attempt > 1:  # why is said under the summary (a row name stays short)
        attempt = QCoreApplication.translate("Cascade", "{route} · attempt {n}")
        return attempt.format(route=label, n=note.attempt)
    return label
