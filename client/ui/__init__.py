"""ui: the PySide6 widgets, the qasync bootstrap, and the latency HUD (client.ui.hud)."""
