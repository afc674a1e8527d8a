"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep tests away from the user's real settings, history and keyring.
os.environ.setdefault("TACHY_TEST", "1")
