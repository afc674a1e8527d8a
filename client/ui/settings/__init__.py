"""The Settings window and its menu: every setting two clicks away, written through services.
May import: ui.warming, ui.knowledge, ui.cascade, ui.tools, ui.common, client.services, client.core.
"""
