"""The lab while it runs: its shared state, the live control, the /metrics counters.
May import: timing, scenarios, text, aiohttp; nothing else of client.
"""
