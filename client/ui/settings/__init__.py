"""The Settings window and its menu: every setting two clicks away, written through services.
May import: ui.demo and the areas below it, ui.common, client.services, client.core.
"""
