"""The user's chat defaults kept between starts, and what Help > About says.
May import: services.chat, client.store, client.core.
"""
