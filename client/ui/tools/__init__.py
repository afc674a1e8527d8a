"""The Tools window: the user's MCP servers, their tools and state, the JSON import.
May import: ui.chat, ui.common, client.services, client.core.
"""
