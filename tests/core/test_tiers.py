from __future__ import annotations

import pytest

from client.core.tiers import Tier, TierThresholds, tier_of


@pytest.mark.parametrize(
    ("ttft_ms", "tier"),
    [
        (0, Tier.INSTANT),
        (99.9, Tier.INSTANT),
        (100, Tier.FAST),
        (299.99, Tier.FAST),
        (300, Tier.TYPING),
        (999, Tier.TYPING),
        (1000, Tier.SLOW),
        (60000, Tier.SLOW),
    ],
)
def test_tier_boundaries(ttft_ms: float, tier: Tier) -> None:
    assert tier_of(ttft_ms) is tier


def test_thresholds_are_editable() -> None:
    strict = TierThresholds(instant_below_ms=50, fast_below_ms=150, typing_below_ms=500)
    assert strict.tier_of(60) is Tier.FAST
    assert strict.tier_of(600) is Tier.SLOW
