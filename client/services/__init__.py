"""What the window and the commands ask for: chat session, generation, warming, servers, stores.
May import: client.backends, client.store, client.core; no Qt, never client.ui or client.cli.
"""
