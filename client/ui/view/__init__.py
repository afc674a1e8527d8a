"""How the window is laid out and looked at: View menu, zoom, the latency panel's fold, Present.
May import: ui.hud, ui.chat, ui.common, client.services, client.core.
"""
