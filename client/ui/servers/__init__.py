"""Servers and models: server bar, model picker, server dialogs, the engine's menus.
May import: ui.chat, ui.common, client.services, client.core.
"""
