"""What the latency HUD shows, without Qt: live series, statistics, server figures.
May import: chat, cascade, images, fleet, servers, events, planning, tools, storage, backends,
store, core.
"""
