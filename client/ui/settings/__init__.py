"""The Settings window and its menu: every setting in two clicks, read and written
through the services and the menus that already hold them (no policy here).
May import: ui.demo and the areas below it, ui.common, client.services, client.core.
"""
