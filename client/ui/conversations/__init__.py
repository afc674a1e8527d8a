"""The conversations panel: list, search, rename, delete with Undo, export.
May import: ui.chat, ui.common, client.services.
"""
