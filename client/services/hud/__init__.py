"""What the latency HUD shows, without Qt: live series, statistics, server figures.
May import: cascade, knowledge, servers, planning, storage; backends, store, core.
"""
