"""The Requests view's QoE figures: the typical answer and the worst ones, with n.

QoE is Andes' (client/core/qoe.py), per answer, for the default reader; over requests
the HUD shows its median (P50) and its 5th percentile (P5): a low tail is what a
reader remembers, so the bottom of the spread matters where TTFT's top does.
"""

from __future__ import annotations

from client.core.qoe import DEFAULT_READER, QoeSpread, qoe_spread

READER_TOKENS_PER_S = DEFAULT_READER.tokens_per_s  # what the view says the figure assumes
READER_FIRST_TOKEN_S = DEFAULT_READER.expected_ttft_s

__all__ = ["READER_FIRST_TOKEN_S", "READER_TOKENS_PER_S", "QoeSpread", "qoe_spread"]
