"""The latency HUD's tabs: one view each (Live, Requests, Waterfall, Tier, Server, Race, Pool).
May import: ui.hud.plots, ui.common, client.services, client.core.
"""
