"""Races in the window: the Race… dialog, the race window's columns and their controller.
May import: ui.hud, ui.servers, ui.chat, ui.common, client.services, client.core.
"""
