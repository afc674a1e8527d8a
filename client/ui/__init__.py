"""The window: PySide6 widgets, the qasync bootstrap, the latency HUD (ui.hud); the only Qt.
May import: client.services, client.core, client.lab (demo menu); never client.store, backends.
"""

from client.ui.common.pyside_scan import read_bytes_instead

read_bytes_instead()  # before the window's modules load (see its module)
