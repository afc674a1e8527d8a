"""The cascade in the window: its menu and the route under each answer.
May import: ui.servers, ui.chat, ui.common, client.services, client.core.
"""
