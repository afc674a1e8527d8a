"""When each piece of a reply is due: the planned chunks, where they come from, the batch queue.
May import: scenarios, text, aiohttp; nothing else of client.
"""
