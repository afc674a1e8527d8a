"""The latency tiers' names and what the window did for each, in the window's language
(the HUD's Tier view and each answer's footer). client.core.tiers has the English ids."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.core.tiers import Tier
from client.services.chat.turn_state import TurnState
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.turn_words import turn_word

TIER_NAMES = {
    Tier.INSTANT: QT_TRANSLATE_NOOP("Tiers", "instant"),
    Tier.FAST: QT_TRANSLATE_NOOP("Tiers", "fast"),
    Tier.TYPING: QT_TRANSLATE_NOOP("Tiers", "typing"),
    Tier.SLOW: QT_TRANSLATE_NOOP("Tiers", "slow"),
}
# The same sentences as client.services.hud.hud_model.TIER_BEHAVIOUR (a test compares them).
TIER_BEHAVIOUR = {
    Tier.INSTANT: QT_TRANSLATE_NOOP("Tiers", "nothing: the reply feels instant"),
    Tier.FAST: QT_TRANSLATE_NOOP("Tiers", "nothing: the reply came before the typing indicator"),
    Tier.TYPING: QT_TRANSLATE_NOOP("Tiers", "typing indicator"),
    Tier.SLOW: QT_TRANSLATE_NOOP("Tiers", "stages ({stages})"),
}


def tier_name(tier: Tier) -> str:
    return QCoreApplication.translate("Tiers", TIER_NAMES[tier])


# What a slow reply's status line may say, in order (when the reply's own are not known).
SLOW_STATES = (TurnState.WAITING, TurnState.READING, TurnState.THINKING, TurnState.ANSWERING)


def tier_behaviour(tier: Tier, states: tuple[TurnState, ...] = ()) -> str:
    """What the window did for a reply of `tier`; a slow one's stages are `states`, the
    ones it went through (its waterfall's), said with the status line's words."""
    text = QCoreApplication.translate("Tiers", TIER_BEHAVIOUR[tier])
    if tier is not Tier.SLOW:
        return text
    separator = QCoreApplication.translate("Tiers", ", ")
    said = states or SLOW_STATES
    return text.format(stages=separator.join(turn_word(state) for state in said))
