"""The app's persistence, where the data lives, writes that wait for room.
May import: client.store, client.core.
"""
