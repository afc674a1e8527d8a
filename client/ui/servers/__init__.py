"""Servers and models: server bar, model picker, server dialogs, engine menus, the welcome.
May import: ui.chat, ui.common, client.services, client.core.
"""
