"""Colours the HUD uses, one place so the plots and the tier view agree."""

from __future__ import annotations

from client.core.tiers import Tier

TIER_COLORS = {
    Tier.INSTANT: (46, 160, 67),  # green
    Tier.FAST: (88, 166, 255),  # blue
    Tier.TYPING: (210, 153, 34),  # amber
    Tier.SLOW: (218, 54, 51),  # red
}
BAND_ALPHA = 40
RATE_COLOR = (88, 166, 255)
GAP_COLOR = (150, 150, 150)
STALL_COLOR = (218, 54, 51)
SIDE_COLORS = {
    "client": (88, 166, 255),
    "server": (46, 160, 67),
    "difference": (210, 153, 34),
}
