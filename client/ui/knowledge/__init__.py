"""The knowledge base in the window: its menu and the retrieving stage.
May import: ui.chat, ui.common, client.services, client.core.
"""
