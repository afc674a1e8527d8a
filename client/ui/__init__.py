"""The window: PySide6 widgets, the qasync bootstrap, the latency HUD (ui.hud); the only Qt.
May import: client.services, client.core, client.lab (demo menu); never client.store, backends.
"""
