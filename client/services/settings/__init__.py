"""The user's chat settings kept between starts: what every server is sent by default
and how long a reply may keep you waiting. May import: services.chat, services.storage,
client.store, client.core.
"""
