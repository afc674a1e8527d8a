"""Server pools in the window: the Pools button beside the server picker, its dialog.
May import: client.services (fleet, servers, tachy), client.ui.common, client.ui.servers.
"""
