"""Races: one question to 2-4 routes at once, answered side by side (Qt-free).
May import: chat (its generations), cascade, knowledge, servers, images, planning,
backends, store, core.
"""
