"""Answering one generation request: a scripted reply played on timers, or a recording replayed.
May import: running, dialects, timing, scenarios, text, aiohttp; nothing else of client.
"""
