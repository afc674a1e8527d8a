"""Keep-alive and the prompt budget in the window: its controller and menu.
May import: ui.servers, ui.chat, ui.common, client.services, client.core.
"""
