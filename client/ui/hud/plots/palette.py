"""Colours the HUD uses, one place so the plots and the tier view agree. Colours of text
are measured for contrast by tests/ui/common/test_contrast.py."""

from __future__ import annotations

from client.core.tiers import Tier

TIER_COLORS = {
    Tier.INSTANT: (46, 160, 67),  # green
    Tier.FAST: (88, 166, 255),  # blue
    Tier.TYPING: (210, 153, 34),  # amber
    Tier.SLOW: (218, 54, 51),  # red
}
# The tiers' colours as text (the Tier tab's large word): darker on a light window and
# lighter on a dark one than the plots' marks, so each reads at 4.5:1 or more.
TIER_TEXT_COLORS = {
    False: {
        Tier.INSTANT: "#15722f",
        Tier.FAST: "#0860ca",
        Tier.TYPING: "#8a5a00",
        Tier.SLOW: "#c1201f",
    },
    True: {
        Tier.INSTANT: "#7ee787",  # (light enough for Fusion's lighter tab pane, #45484c)
        Tier.FAST: "#a5d6ff",
        Tier.TYPING: "#f2cc60",
        Tier.SLOW: "#ffa198",
    },
}
BAND_ALPHA = 40
RATE_COLOR = (88, 166, 255)
GAP_COLOR = (150, 150, 150)
STALL_COLOR = (218, 54, 51)
SIDE_COLORS = {
    "client": (88, 166, 255),
    "server": (46, 160, 67),
    "difference": (210, 153, 34),
    "tool": (163, 113, 247),  # a tool's run (purple)
    "approval": (150, 150, 150),  # the user's approval: grey and hatched, never latency
}
