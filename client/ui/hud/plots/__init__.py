"""The HUD's drawing parts shared by its tabs: axes, row labels, tier bands, colours, export.
May import: ui.common, client.services, client.core.
"""
