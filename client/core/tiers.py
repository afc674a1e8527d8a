"""Perceived-latency tiers of a reply, by time to first token."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tier(StrEnum):
    INSTANT = "instant"  # feels instant
    FAST = "fast"  # an instant reply
    TYPING = "typing"  # needs a typing indicator
    SLOW = "slow"  # needs stages or progress


@dataclass(frozen=True, slots=True)
class TierThresholds:
    instant_below_ms: float = 100.0
    fast_below_ms: float = 300.0
    typing_below_ms: float = 1000.0

    def tier_of(self, ttft_ms: float) -> Tier:
        if ttft_ms < self.instant_below_ms:
            return Tier.INSTANT
        if ttft_ms < self.fast_below_ms:
            return Tier.FAST
        if ttft_ms < self.typing_below_ms:
            return Tier.TYPING
        return Tier.SLOW


DEFAULT_THRESHOLDS = TierThresholds()


def tier_of(ttft_ms: float, thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> Tier:
    return thresholds.tier_of(ttft_ms)
