"""The app shell: start-up, the main window, app-wide menus, flows played in the window.
May import: client.ui (every area), client.services, client.core, client.lab.
"""

from client.ui.shell.pyside_scan import read_bytes_instead

read_bytes_instead()  # before the window's modules load (see its module)
