"""The app shell: start-up, the main window, app-wide menus, flows played in the window.
May import: client.ui (every area), client.services, client.core, client.lab.
"""
