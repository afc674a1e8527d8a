"""The latency tiers' names and what the window did for each, in the window's language
(the HUD's Tier view and each answer's footer). client.core.tiers has the English ids."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.core.tiers import Tier
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

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
    Tier.SLOW: QT_TRANSLATE_NOOP("Tiers", "stages (understanding, thinking, answering)"),
}


def tier_name(tier: Tier) -> str:
    return QCoreApplication.translate("Tiers", TIER_NAMES[tier])


def tier_behaviour(tier: Tier) -> str:
    return QCoreApplication.translate("Tiers", TIER_BEHAVIOUR[tier])
