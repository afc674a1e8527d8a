"""ui: the PySide6 widgets, the qasync bootstrap, and the latency HUD (client.ui.hud)."""

from client.ui._refcount_guard import guard_singletons

guard_singletons()  # before any Qt call: see _refcount_guard for the PySide6 6.12 bug
