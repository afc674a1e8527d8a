"""The model picker's widgets: its combo, popup, rows and the lists it shows.
May import: ui.common, client.services, client.core.
"""
